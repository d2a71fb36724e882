/**
 * The sandbox model with real processes on Lambda's Node: one invocation per sandbox, module
 * scope kept (warm), a cold start for each invocation that finds no sandbox free (its own, even
 * when another frees first), up to the concurrency limit and throttling beyond it,
 * the timeout, a crash that takes one sandbox only, REPORT lines, new code swapped in while an
 * invocation finishes on the old, and through the gateway over HTTP: the Node version a function
 * sees and what a throttled invocation answers.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { API } from '../../../lib/definitions/api';
import { build } from 'esbuild';
import { lambdaNode } from '../../../lib/definitions/lambda-node';
import { freePort } from '../../../lib/local/process/free-port';
import { Gateway } from '../../../lib/local/gateway';
import { SandboxPool, type PoolOptions } from '../../../lib/local/lambda/pool';
import { StartGate } from '../../../lib/local/lambda/start-gate';

const dir = mkdtempSync(join(tmpdir(), 'plant-store-sandbox-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A handler with module-scope state, told by its event what to do. */
function bundle(name: string, label: string): string {
  const file = join(dir, `${name}.mjs`);
  writeFileSync(
    file,
    `import { existsSync, writeFileSync } from 'node:fs';
let count = 0;
export const handler = async (event = {}) => {
  count++;
  if (event.hold) {
    writeFileSync(\`\${event.hold}.\${process.pid}\`, '');
    while (!existsSync(event.hold)) await new Promise((resolve) => setTimeout(resolve, 20));
  }
  if (event.wait) await new Promise((resolve) => setTimeout(resolve, event.wait));
  if (event.crash) process.exit(3);
  if (event.grow) for (const kept = []; ; ) kept.push(new Array(1e5).fill(kept.length));
  if (event.hang) await new Promise(() => setInterval(() => undefined, 1000));
  const answer = { label: ${JSON.stringify(label)}, pid: process.pid, count, version: process.version };
  return event.http ? { statusCode: 200, body: JSON.stringify(answer) } : answer;
};
`,
  );
  return file;
}

interface Answer {
  label: string;
  pid: number;
  count: number;
  version: string;
}

const pools: SandboxPool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.stop()));
});

function pool(options: Partial<PoolOptions> = {}) {
  const lines: string[] = [];
  const created = new SandboxPool({
    name: 'test',
    bundle: bundle('counter', 'v1'),
    environment: {},
    timeoutSeconds: 10,
    memorySize: 128,
    concurrency: 10,
    nodePath: lambdaNode().path,
    log: (line) => lines.push(line),
    ...options,
  });
  pools.push(created);
  const invoke = (event: object = {}) => created.invoke(event) as Promise<Answer>;
  return { pool: created, invoke, lines };
}

it('keeps a warm sandbox: one process, module scope kept between invocations', async () => {
  const { pool: p, invoke } = pool();
  const answers = [await invoke(), await invoke(), await invoke()];
  expect(answers.map((a) => a.count)).toEqual([1, 2, 3]);
  expect(new Set(answers.map((a) => a.pid)).size).toBe(1);
  expect(p.size).toBe(1);
});

/**
 * Invocations that wait inside the handler until `release()`: `started(n)` resolves once `n` of
 * them run (each in its own sandbox, since none can finish), whatever the machine's speed.
 */
let holds = 0;
function hold() {
  const file = join(dir, `hold-${++holds}`);
  const base = file.slice(dir.length + 1);
  return {
    event: { hold: file },
    started: (n: number) =>
      until(
        () => readdirSync(dir).filter((f) => f.startsWith(`${base}.`)).length >= n,
        `${n} invocations to start`,
      ),
    release: () => writeFileSync(file, ''),
  };
}

it('starts a cold sandbox for each invocation that finds all busy, and reuses them after', async () => {
  const { pool: p, invoke, lines } = pool();
  const held = hold();
  const answers = Promise.all([1, 2, 3].map(() => invoke(held.event)));
  await held.started(3);
  held.release();
  expect((await answers).map((a) => a.count)).toEqual([1, 1, 1]);
  expect(new Set((await answers).map((a) => a.pid)).size).toBe(3);
  expect(p.size).toBe(3);
  expect(lines.filter((l) => l.startsWith('INIT_START sandbox '))).toHaveLength(3);
  const again = await invoke();
  expect(again.count).toBe(2);
  expect((await answers).map((a) => a.pid)).toContain(again.pid);
});

it('starts sandboxes through the gate, at most its slots at once, and serves every invocation', async () => {
  let starting = 0;
  let most = 0;
  class CountingGate extends StartGate {
    override async enter() {
      const release = await super.enter();
      most = Math.max(most, ++starting);
      return () => {
        starting--;
        release();
      };
    }
  }
  const { pool: p, invoke } = pool({ startGate: new CountingGate(1) });
  const held = hold();
  const answers = Promise.all([1, 2, 3, 4, 5].map(() => invoke(held.event)));
  await held.started(5);
  held.release();
  expect(new Set((await answers).map((a) => a.pid)).size).toBe(5);
  expect(p.size).toBe(5);
  expect(most).toBe(1);
});

it('8 concurrent invocations on a cold pool: 8 sandboxes, 8 inits, module state per sandbox', async () => {
  // One start at a time, the handler quick: the first sandbox is free long before the last one
  // starts, and still each invocation keeps the sandbox started for it, as Lambda binds it.
  const { invoke, lines } = pool({ startGate: new StartGate(1) });
  const burst = () => Promise.all(Array.from({ length: 8 }, () => invoke()));
  const cold = await burst();
  expect(new Set(cold.map((a) => a.pid)).size).toBe(8);
  expect(cold.map((a) => a.count)).toEqual([1, 1, 1, 1, 1, 1, 1, 1]);
  const inits = () => lines.filter((l) => l.startsWith('INIT_START sandbox ')).length;
  const initDurations = () =>
    lines.filter((l) => l.startsWith('REPORT ') && l.includes('\tInit Duration: ')).length;
  expect(inits()).toBe(8);
  expect(initDurations()).toBe(8);
  expect(lines.some((l) => l.startsWith('throttled'))).toBe(false);
  // The same burst again is warm: each sandbox kept its own module state.
  const warm = await burst();
  expect(new Set(warm.map((a) => a.pid))).toEqual(new Set(cold.map((a) => a.pid)));
  expect(warm.map((a) => a.count)).toEqual([2, 2, 2, 2, 2, 2, 2, 2]);
  expect(inits()).toBe(8);
  expect(initDurations()).toBe(8);
});

it('a sandbox started for an invocation serves it even when new code arrives during its start', async () => {
  const lines: string[] = [];
  let swapped: Promise<void> | undefined;
  const p = new SandboxPool({
    name: 'test',
    bundle: bundle('counter-4', 'v1'),
    environment: {},
    timeoutSeconds: 10,
    memorySize: 128,
    concurrency: 10,
    nodePath: lambdaNode().path,
    // The save lands while the invocation's sandbox is starting on the old code.
    log: (line) => {
      lines.push(line);
      if (line.startsWith('INIT_START') && !swapped) swapped = p.swap(bundle('counter-5', 'v2'));
    },
  });
  pools.push(p);
  const first = (await p.invoke({})) as Answer;
  expect(first).toMatchObject({ label: 'v1', count: 1 });
  await swapped;
  expect(((await p.invoke({})) as Answer).label).toBe('v2');
  await until(() => p.size === 1, 'the old sandbox to retire');
});

it('a failed init fails the invocation it was started for, and only that one', async () => {
  const broken = join(dir, 'broken.mjs');
  writeFileSync(broken, "throw new Error('cannot start');\n");
  const { pool: p, invoke } = pool({ bundle: broken });
  const results = await Promise.allSettled([invoke(), invoke()]);
  for (const result of results) {
    expect(result).toMatchObject({ status: 'rejected', reason: { message: /cannot start/ } });
  }
  await until(() => p.size === 0, 'the failed sandboxes to exit');
});

it('gives the next invocation the sandbox that finished last (the warmest), not the oldest', async () => {
  const { invoke } = pool();
  const first = hold();
  const second = hold();
  const early = invoke(first.event);
  const late = invoke(second.event);
  await Promise.all([first.started(1), second.started(1)]);
  first.release();
  await early;
  second.release();
  const [e, l] = await Promise.all([early, late]);
  expect(e.pid).not.toBe(l.pid);
  const next = await invoke();
  expect(next).toMatchObject({ pid: l.pid, count: 2 });
});

it('throttles an invocation beyond the concurrency limit', async () => {
  const { pool: p, invoke, lines } = pool({ concurrency: 2 });
  const results = await Promise.allSettled([1, 2, 3].map(() => invoke({ wait: 300 })));
  expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(2);
  const [rejected] = results.filter((r) => r.status === 'rejected');
  expect((rejected as PromiseRejectedResult).reason).toMatchObject({ kind: 'throttled' });
  expect(lines.some((l) => l.startsWith('throttled '))).toBe(true);
  expect(p.size).toBe(2);
});

it('kills a sandbox that runs past the timeout; the next invocation starts a new one', async () => {
  const { pool: p, invoke, lines } = pool({ timeoutSeconds: 1 });
  const first = await invoke();
  await expect(invoke({ hang: true })).rejects.toMatchObject({ kind: 'timeout' });
  expect(lines.some((l) => l.endsWith('Task timed out after 1.00 seconds'))).toBe(true);
  const next = await invoke();
  expect(next.pid).not.toBe(first.pid);
  expect(next.count).toBe(1);
  expect(p.size).toBe(1);
});

it('a crash takes down its own sandbox only; the busy neighbour finishes and stays warm', async () => {
  const { pool: p, invoke } = pool();
  const [crashed, survived] = await Promise.allSettled([
    invoke({ wait: 100, crash: true }),
    invoke({ wait: 400 }),
  ]);
  expect(crashed).toMatchObject({ status: 'rejected', reason: { kind: 'crash' } });
  expect(survived.status).toBe('fulfilled');
  const survivor = (survived as PromiseFulfilledResult<Answer>).value;
  expect(p.size).toBe(1);
  const next = await invoke();
  expect(next).toMatchObject({ pid: survivor.pid, count: 2 });
});

it("holds the heap to the function's memory: a function that outgrows it dies alone", async () => {
  const { pool: p, invoke, lines } = pool({ memorySize: 64 });
  await expect(invoke({ grow: true })).rejects.toMatchObject({ kind: 'crash' });
  expect(lines.join('\n')).toMatch(/heap out of memory|Reached heap limit/i);
  expect(p.size).toBe(0);
  expect((await invoke()).count).toBe(1);
});

it('prints a REPORT line per invocation, with the Init Duration on the cold one', async () => {
  const { invoke, lines } = pool();
  await invoke();
  await invoke();
  const reports = lines.filter((l) => l.startsWith('REPORT '));
  expect(reports).toHaveLength(2);
  const fields =
    /^REPORT RequestId: [0-9a-f-]{36}\tDuration: [\d.]+ ms\tBilled Duration: \d+ ms\tMemory Size: 128 MB\tMax Memory Used: \d+ MB/;
  expect(reports[0]).toMatch(fields);
  expect(reports[0]).toMatch(/\tInit Duration: [\d.]+ ms$/);
  expect(reports[1]).toMatch(fields);
  expect(reports[1]).not.toContain('Init Duration');
});

it('swaps in new code: the invocation in flight finishes on the old, the next runs the new', async () => {
  const { pool: p, invoke } = pool();
  const held = hold();
  const inFlight = invoke(held.event);
  await held.started(1);
  await p.swap(bundle('counter-2', 'v2'));
  const fresh = await invoke();
  expect(fresh.label).toBe('v2');
  held.release();
  expect((await inFlight).label).toBe('v1');
});

/** Polls `check` every 50 ms, failing after 20 s. */
async function until(check: () => boolean | Promise<boolean>, what: string) {
  for (const started = Date.now(); !(await check());) {
    if (Date.now() - started > 20_000) throw new Error(`waited 20 s for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

it('stops a sandbox idle for idleSeconds; the next invocation starts a new one, with an INIT', async () => {
  const { pool: p, invoke, lines } = pool({ idleSeconds: 1 });
  const held = hold();
  const both = Promise.all([invoke(held.event), invoke(held.event)]);
  await held.started(2);
  held.release();
  const [a, b] = await both;
  expect(p.size).toBe(2);
  await until(() => p.size === 0, 'the idle sandboxes to exit');
  expect(lines.filter((l) => /^SHUTDOWN sandbox \d+: idle for 1 s/.test(l))).toHaveLength(2);
  const next = await invoke();
  expect([a.pid, b.pid]).not.toContain(next.pid);
  expect(next.count).toBe(1);
  expect(lines.filter((l) => l.startsWith('INIT_START sandbox '))).toHaveLength(3);
  expect(lines.filter((l) => l.startsWith('REPORT ')).at(-1)).toContain('Init Duration');
});

describe('under the inspector', () => {
  it('runs one sandbox whose inspector answers; invocations queue for it, none throttled', async () => {
    const inspectPort = await freePort();
    const { pool: p, invoke, lines } = pool({ inspectPort, idleSeconds: 1 });
    await p.warm();
    const list = (await (await fetch(`http://127.0.0.1:${inspectPort}/json/list`)).json()) as {
      type: string;
    }[];
    expect(list[0]!.type).toBe('node');
    const answers = await Promise.all([1, 2, 3].map(() => invoke({ wait: 100 })));
    expect(new Set(answers.map((a) => a.pid)).size).toBe(1);
    expect(answers.map((a) => a.count).sort()).toEqual([1, 2, 3]);
    expect(lines.some((l) => l.startsWith('throttled'))).toBe(false);
    // No idle exit while a debugger may be attached.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(p.size).toBe(1);
  });

  it('keeps the inspector port across new code: the old sandbox goes before the new starts', async () => {
    const inspectPort = await freePort();
    const { pool: p, invoke } = pool({ inspectPort });
    await invoke();
    await p.swap(bundle('counter-3', 'v3'));
    expect((await invoke()).label).toBe('v3');
    expect(p.size).toBe(1);
    expect((await fetch(`http://127.0.0.1:${inspectPort}/json/list`)).status).toBe(200);
  });

  it('names .ts lines in stack traces of a bundle built with source maps', async () => {
    const entry = join(dir, 'fails.ts');
    writeFileSync(
      entry,
      "const label: string = 'fails';\nexport const handler = async () => {\n  throw new Error(label);\n};\n",
    );
    const out = join(dir, 'fails.mjs');
    await build({
      entryPoints: [entry],
      outfile: out,
      bundle: true,
      format: 'esm',
      platform: 'node',
      sourcemap: 'inline',
    });
    const { invoke, lines } = pool({ bundle: out, inspectPort: await freePort() });
    await expect(invoke()).rejects.toThrow('fails');
    expect(lines.join('\n')).toMatch(/fails\.ts:3:\d+/);
  });
});

describe('through the gateway over HTTP', () => {
  let gateway: Gateway;
  let url: string;
  let functions: ReturnType<typeof pool>;
  beforeAll(async () => {
    functions = pool({ concurrency: 1 });
    const p = functions.pool;
    gateway = new Gateway({
      api: {
        ...API,
        routes: [{ method: 'POST', path: '/probe', function: 'create-plant', authorized: false }],
      },
      authCacheTtlSeconds: 0,
      log: () => undefined,
      invoke: (_, event) => {
        const body = JSON.parse((event as { body: string }).body);
        return p.invoke({ ...body, http: true });
      },
    });
    url = `http://127.0.0.1:${await gateway.listen(0)}/probe`;
    pools.splice(pools.indexOf(p), 1); // stopped in afterAll, not after each test
  });
  afterAll(async () => {
    await gateway.close();
    await functions.pool.stop();
  });
  const probe = (body: object) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it("runs functions on Lambda's Node 24 (the node-<platform> package)", async () => {
    const node = lambdaNode();
    expect(node.notice).toBeUndefined();
    expect(node.major).toBe(24);
    const response = await probe({});
    expect(response.status).toBe(200);
    const { version } = (await response.json()) as Answer;
    expect(version).toMatch(/^v24\./);
  });

  it('answers a throttled invocation 500 {"message":"Internal Server Error"}', async () => {
    // One sandbox allowed: whichever request reaches it second is throttled.
    const answers = await Promise.all([probe({ wait: 400 }), probe({ wait: 400 })]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 500]);
    const throttled = answers.find((a) => a.status === 500)!;
    expect(await throttled.text()).toBe('{"message":"Internal Server Error"}');
  });
});
