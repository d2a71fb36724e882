/**
 * Sandbox pools for tests, on real processes running Lambda's Node: a counter function told by
 * its event what to do (hold, wait, crash, print, fail, touch memory for a moment, outgrow its heap, hang, report its flags or the time it was given, answer what JSON cannot hold), pools stopped after each
 * test, and invocations held until released.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lambdaNode } from '../../lib/definitions/lambda-node';
import { SandboxPool, type PoolOptions } from '../../lib/local/lambda/pool';

export const dir = mkdtempSync(join(tmpdir(), 'plant-store-sandbox-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A handler with module-scope state, told by its event what to do. */
export function bundle(name: string, label: string): string {
  const file = join(dir, `${name}.mjs`);
  writeFileSync(
    file,
    `import { existsSync, writeFileSync } from 'node:fs';
import v8 from 'node:v8';
import vm from 'node:vm';
let count = 0;
export const handler = async (event = {}, context) => {
  count++;
  const remainingMs = context.getRemainingTimeInMillis();
  if (event.hold) {
    writeFileSync(\`\${event.hold}.\${process.pid}\`, '');
    while (!existsSync(event.hold)) await new Promise((resolve) => setTimeout(resolve, 20));
  }
  if (event.wait) await new Promise((resolve) => setTimeout(resolve, event.wait));
  if (event.crash) process.exit(3);
  if (event.print) {
    console.log(event.print);
    console.error(event.print);
    process.stdout.write(\`\${event.print} unfinished\`);
  }
  if (event.fail) throw new Error(event.fail);
  if (event.bigint) return { count: BigInt(count) };
  if (event.peakMb) {
    // Touched, dropped and collected within a few milliseconds: gone before the invocation ends.
    Buffer.alloc(event.peakMb * 1048576, 1).fill(2);
    v8.setFlagsFromString('--expose-gc');
    vm.runInNewContext('gc')();
  }
  if (event.grow) for (const kept = []; ; ) kept.push(new Array(1e5).fill(kept.length));
  if (event.hang) await new Promise(() => setInterval(() => undefined, 1000));
  const answer = { label: ${JSON.stringify(label)}, pid: process.pid, count, version: process.version, ...(event.execArgv ? { execArgv: process.execArgv } : {}), ...(event.remaining ? { remainingMs } : {}) };
  return event.http ? { statusCode: 200, body: JSON.stringify(answer) } : answer;
};
`,
  );
  return file;
}

export interface Answer {
  label: string;
  pid: number;
  count: number;
  version: string;
  /** The sandbox's Node flags, when the event asks for them (`{ execArgv: true }`). */
  execArgv?: string[];
  /** What the context said was left of the invocation, when asked (`{ remaining: true }`). */
  remainingMs?: number;
}

const pools: SandboxPool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.stop()));
});

export function pool(options: Partial<PoolOptions> = {}) {
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

/** Takes `created` off the list stopped after each test (the caller stops it). */
export function keep(created: SandboxPool): void {
  pools.splice(pools.indexOf(created), 1);
}

/**
 * Invocations that wait inside the handler until `release()`: `started(n)` resolves once `n` of
 * them run (each in its own sandbox, since none can finish), whatever the machine's speed.
 */
let holds = 0;
export function hold() {
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

/** Polls `check` every 50 ms, failing after 2 minutes (a bound against a hang only). */
export async function until(check: () => boolean | Promise<boolean>, what: string) {
  for (const started = Date.now(); !(await check());) {
    if (Date.now() - started > 120_000) throw new Error(`waited 2 minutes for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
