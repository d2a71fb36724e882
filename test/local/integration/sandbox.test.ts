/**
 * The sandbox model with real processes on Lambda's Node: one invocation per sandbox, module
 * scope kept (warm), a cold start for each invocation that finds no sandbox free (its own, even
 * when another frees first), starts through the gate, up to the concurrency limit and throttling
 * beyond it, the timeout, a crash that takes one sandbox only, the heap limit, REPORT lines, new
 * code swapped in while an invocation finishes on the old, the idle exit, and each sandbox's
 * lower priority. Under the inspector: sandbox-inspector.test.ts; through the gateway:
 * sandbox-http.test.ts.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import { join } from 'node:path';
import { lambdaHeapFlags, START_WRAPPER } from '../../../lib/definitions/lambda-node';
import {
  batchScheduler,
  probeBatchScheduler,
  Sandbox,
  SANDBOX_NICENESS,
} from '../../../lib/local/lambda/sandbox';
import { StartGate } from '../../../lib/local/lambda/start-gate';
import { bundle, dir, hold, pool, until, type Answer } from '../../support/sandbox-pool';

it('keeps a warm sandbox: one process, module scope kept between invocations', async () => {
  const { pool: p, invoke } = pool();
  const answers = [await invoke(), await invoke(), await invoke()];
  expect(answers.map((a) => a.count)).toEqual([1, 2, 3]);
  expect(new Set(answers.map((a) => a.pid)).size).toBe(1);
  expect(p.size).toBe(1);
});

// Windows has priority classes, and a niceness of five maps to the normal one (see the constant).
const posix = process.platform === 'win32' ? it.skip : it;

posix('runs each sandbox nicer than the runtime: the services it calls go first', async () => {
  const { invoke } = pool();
  const { pid } = await invoke();
  expect(SANDBOX_NICENESS).toBeGreaterThan(0);
  const niceness = Math.min(19, getPriority() + SANDBOX_NICENESS);
  expect(getPriority(pid)).toBe(niceness);
  if (process.platform !== 'linux') return;
  // Every thread of it (Linux keeps a niceness per thread): the 19th field of each one's stat.
  // Threads Node made after the spawn's renice inherit it; the pass once the bundle is imported
  // catches any made before (renicing the main thread alone, late, fails here).
  const threads = readdirSync(`/proc/${pid}/task`);
  expect(threads.length).toBeGreaterThan(1);
  for (const thread of threads) {
    const stat = readFileSync(`/proc/${pid}/task/${thread}/stat`, 'utf8');
    expect(Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])).toBe(niceness);
  }
});

/** Each live thread's scheduling policy and niceness (the 41st and 19th fields of its stat). */
function schedules(pid: number): { policy: number; niceness: number }[] {
  return readdirSync(`/proc/${pid}/task`).flatMap((thread) => {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${thread}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return [{ policy: Number(fields[38]), niceness: Number(fields[16]) }];
    } catch {
      return []; // the thread ended meanwhile
    }
  });
}

/** Whether this system lets util-linux's chrt set SCHED_BATCH, asked without the code under test. */
function systemAllowsBatch(): boolean {
  try {
    const stat = execFileSync('/usr/bin/chrt', ['--batch', '0', 'cat', '/proc/self/stat'], {
      encoding: 'utf8',
    });
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[38]) === 3;
  } catch {
    return false;
  }
}

(process.platform === 'linux' ? it : it.skip)(
  'runs every thread of each sandbox under SCHED_BATCH where the system allows it, its niceness kept',
  async () => {
    const { invoke } = pool();
    const { pid, count } = await invoke();
    expect(count).toBe(1);
    const batch = systemAllowsBatch();
    expect(batchScheduler()).toBe(batch ? '/usr/bin/chrt' : undefined);
    const threads = schedules(pid);
    expect(threads.length).toBeGreaterThan(1);
    const niceness = Math.min(19, getPriority() + SANDBOX_NICENESS);
    expect(new Set(threads.map((t) => `${t.policy} ${t.niceness}`))).toEqual(
      new Set([`${batch ? 3 : 0} ${niceness}`]),
    );
    // The sandbox is Node itself (chrt ran it in its place); the runtime keeps the normal policy.
    expect(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0]).toMatch(/node$/);
    expect(schedules(process.pid)[0].policy).toBe(0);
  },
);

it('starts sandboxes as plain Node where chrt may not set the policy', () => {
  const refused = () => {
    throw new Error("chrt: failed to set pid 0's policy: Operation not permitted");
  };
  expect(probeBatchScheduler(refused)).toBeUndefined();
  if (process.platform !== 'linux' || !existsSync('/usr/bin/chrt')) return;
  const calls: string[][] = [];
  expect(probeBatchScheduler((file, args) => calls.push([file, ...args]))).toBe('/usr/bin/chrt');
  // The probe sets the policy for real before it runs anything: chrt's own option, then a command.
  expect(calls).toEqual([['/usr/bin/chrt', '--batch', '0', '/usr/bin/chrt', '--version']]);
});

it.each([
  ['plain Node, not found: the process never starts', undefined, /could not start: .*ENOENT/],
  ['through chrt, Node not found: chrt exits', '/usr/bin/chrt', /exit code 127/],
])('ends a sandbox whose Node cannot start, %s', async (_, scheduler, reason) => {
  // chrt execs Node only where the system lets it set the policy (else it exits 1 first).
  if (scheduler && !systemAllowsBatch()) return;
  const exits: string[] = [];
  const sandbox = new Sandbox({
    bundle: join(dir, 'never-read.mjs'),
    generation: 0,
    environment: {},
    nodePath: join(dir, 'no-such-node'),
    execArgv: [],
    scheduler,
    log: () => undefined,
    onExit: (_sandbox, why) => exits.push(why),
  });
  await expect(sandbox.ready).rejects.toThrow(reason);
  expect(exits).toEqual([expect.stringMatching(reason)]);
  expect(sandbox.alive).toBe(false);
  expect(sandbox.state).toBe('failed');
});

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
  const { pool: p } = pool({
    bundle: bundle('counter-4', 'v1'),
    // The save lands while the invocation's sandbox is starting on the old code.
    log: (line) => {
      lines.push(line);
      if (line.startsWith('INIT_START') && !swapped) swapped = p.swap(bundle('counter-5', 'v2'));
    },
  });
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
  // The hung process itself is gone (it hung on the warm sandbox): within 5 s, else killed here.
  const alive = () => {
    try {
      process.kill(first.pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  for (let waited = 0; alive() && waited < 5_000; waited += 50) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const leaked = alive();
  if (leaked) process.kill(first.pid, 'SIGKILL');
  expect(leaked).toBe(false);
  const next = await invoke();
  expect(next.pid).not.toBe(first.pid);
  expect(next.count).toBe(1);
  expect(p.size).toBe(1);
});

it('tells the function the time it has left, counted from the timeout, as Lambda’s context does', async () => {
  const { invoke } = pool({ timeoutSeconds: 30 });
  const { remainingMs } = await invoke({ remaining: true });
  expect(remainingMs).toBeLessThanOrEqual(30_000);
  expect(remainingMs).toBeGreaterThan(25_000);
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

it("starts a sandbox with Lambda's heap limits and the flags each function's start wrapper adds, never --expose-gc", async () => {
  const { invoke } = pool({ memorySize: 256 });
  const { execArgv } = await invoke({ execArgv: true });
  expect(execArgv).toEqual(
    expect.arrayContaining([...START_WRAPPER.nodeFlags, ...lambdaHeapFlags(256)]),
  );
  expect(execArgv).not.toContain('--expose-gc');
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

it('logs every line an invocation printed before its REPORT, as Lambda does, failed or not', async () => {
  const { invoke, lines } = pool();
  // The pipes and the IPC channel are read in no fixed order: many rounds, each ordered.
  for (let round = 0; round < 25; round += 1) {
    const fail = round % 2 === 1;
    const outcome = invoke({ print: `line ${round}`, ...(fail && { fail: `failed ${round}` }) });
    await (fail ? expect(outcome).rejects.toThrow(`failed ${round}`) : outcome);
    const report = lines.findLastIndex((line) => line.startsWith('REPORT '));
    const printed = lines.slice(0, report);
    // Twice (stdout and stderr), the unfinished line cut at the end mark, and the failure's stack.
    expect(printed.filter((line) => line === `line ${round}`)).toHaveLength(2);
    expect(printed).toContain(`line ${round} unfinished`);
    if (fail) expect(printed.some((line) => line.includes(`Error: failed ${round}`))).toBe(true);
  }
  // The marks themselves are never logged.
  expect(lines.filter((line) => line.includes('plant-store:end:'))).toEqual([]);
});

it('an answer JSON cannot hold fails its invocation, as Lambda does, and the sandbox stays warm', async () => {
  const { pool: p, invoke, lines } = pool();
  await expect(invoke({ bigint: true })).rejects.toThrow(/the result cannot be serialized/);
  expect(lines.filter((l) => l.startsWith('REPORT ')).at(-1)).toContain('Status: error');
  expect((await invoke()).count).toBe(2);
  expect(p.size).toBe(1);
});

// Linux keeps the peak (VmHWM); where there is no /proc (macOS) it is sampled every 20 ms.
const kernelKeepsPeak = existsSync('/proc/self/status');

(kernelKeepsPeak ? it : it.skip)(
  "reports a sandbox's peak memory, even a peak shorter than any sampling interval",
  async () => {
    const { invoke, lines } = pool();
    await invoke();
    await invoke({ peakMb: 96 });
    const used = lines
      .filter((l) => l.startsWith('REPORT '))
      .map((l) => Number(/Max Memory Used: (\d+) MB/.exec(l)![1]));
    expect(used).toHaveLength(2);
    // The buffer lives for a few milliseconds; the peak counts it.
    expect(used[1]! - used[0]!).toBeGreaterThanOrEqual(90);
  },
);

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
