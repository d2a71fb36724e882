/**
 * Every command as the CLI convention (lib/cli) says, tried the way a shell treats it:
 * - a closed stdout (`npm run webhook -- attempts <id> | head -4`, once head has what it wants)
 *   ends the command quietly with exit code 0, never `Error: write EPIPE`;
 * - each `npm run` entry runs its program with `exec`, so that the process npm signals is the one
 *   that holds a port: SIGTERM or SIGINT to `npm run start|db|webhook -- listen` closes the port,
 *   and npm exits 0 (a shell in between would die and leave the program serving).
 * The commands are read from package.json: a new entry is tested without an edit here.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { binArgs, binNode, binScript } from '../../../lib/cli/bin-entry';
import { checkPortFree, freePort } from '../../../lib/local/process/free-port';

const ROOT = join(__dirname, '../../..');
const SCRIPTS = (
  JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  }
).scripts;
/** `npm run <name>` entries that run a `bin/` program, with the program's file. */
const ENTRIES = Object.entries(SCRIPTS).flatMap(([name, script]) => {
  const bin = /\bbin\/([\w-]+)\.ts\b/.exec(script)?.[1];
  return bin ? [[name, bin] as const] : [];
});

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
const tempDir = () => {
  dirs.push(mkdtempSync(join(tmpdir(), 'plant-store-cli-signals-')));
  return dirs.at(-1)!;
};

/** How a finished process ended. */
interface Ended {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stderr: string;
}

/** Starts `bin/<bin>.ts` as its npm entry does (lib/cli/bin-entry.ts). */
const spawnBin = (bin: string, args: string[], env: NodeJS.ProcessEnv) =>
  spawn(binNode(bin), binArgs(bin, args), {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });

/**
 * Runs `bin/<bin>.ts` with a stdout whose reader has gone before the first line: every write
 * meets EPIPE, as after `| head` has exited.
 */
function withClosedStdout(bin: string, args: string[], env: NodeJS.ProcessEnv = {}) {
  const child = spawnBin(bin, args, env);
  child.stdout.destroy();
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise<Ended>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal, stderr })),
  );
}

it('package.json: every entry that runs one program execs it, so npm signals that program', () => {
  const single = Object.entries(SCRIPTS).filter(([, script]) => !/&&|;|\|/.test(script));
  expect(single.length).toBeGreaterThan(ENTRIES.length);
  expect(single.filter(([, script]) => !script.startsWith('exec '))).toEqual([]);
  expect(ENTRIES.map(([name]) => name)).toEqual(
    expect.arrayContaining(['token', 'webhook', 'start', 'db', 'smoke', 'bench', 'load']),
  );
  for (const [name, bin] of ENTRIES) {
    expect([name, SCRIPTS[name]]).toEqual([name, binScript(bin)]);
  }
});

describe('a closed stdout ends each command quietly, exit code 0', () => {
  it.each(ENTRIES)('npm run %s -- --help', async (_, bin) => {
    await expect(withClosedStdout(bin, ['--help'])).resolves.toEqual({
      code: 0,
      signal: null,
      stderr: '',
    });
  });

  it('token list and webhook list, with rows to print, against npm run db', async () => {
    const db = await serve('db');
    try {
      const env = db.env;
      expect(await run('token', ['create', '--name', 'piped'], env)).toMatchObject({ code: 0 });
      expect(
        await run(
          'webhook',
          ['add', '--url', 'http://127.0.0.1:4000/hook', '--name', 'piped'],
          env,
        ),
      ).toMatchObject({ code: 0 });
      for (const bin of ['token', 'webhook']) {
        await expect(withClosedStdout(bin, ['list'], env)).resolves.toEqual({
          code: 0,
          signal: null,
          stderr: '',
        });
      }
    } finally {
      await db.stop('SIGTERM');
    }
  });
});

/** A finished command's exit code and output. */
function run(bin: string, args: string[], env: NodeJS.ProcessEnv) {
  const child = spawnBin(bin, args, env);
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise<{ code: number | null; output: string }>((resolve) =>
    child.once('exit', (code) => resolve({ code, output })),
  );
}

/** What each serving entry is told, and the line that says it serves. */
const SERVING: Record<string, { args: string[]; ready: RegExp; ports: Port[] }> = {
  start: { args: ['--memory', '--no-watch'], ready: /try: +curl/, ports: ['api', 'engine'] },
  db: { args: ['--memory'], ready: /engine on http/, ports: ['engine'] },
  webhook: { args: ['listen'], ready: /listening on http/, ports: ['api'] },
};
type Port = 'api' | 'engine';

/**
 * `npm run <name> -- <args>` on free ports (its own data directory), once it says it serves;
 * `stop` sends `signal` to npm alone, as a process manager or `kill <npm's pid>` does, and
 * resolves with npm's exit code, the ports it was given and what it printed.
 */
async function serve(name: string, dataDir = tempDir()) {
  const ports: Record<Port, number> = { api: await freePort(), engine: await freePort() };
  const { args, ready } = SERVING[name]!;
  const listenPort = name === 'webhook' ? ['--port', String(ports.api)] : [];
  const env = {
    PORT: String(ports.api),
    PLANT_STORE_DB_PORT: String(ports.engine),
    PLANT_STORE_DATA_DIR: dataDir,
    PLANT_STORE_WEBHOOK_SECRET: `whsec_${Buffer.alloc(32, 7).toString('base64')}`,
  };
  const npm = spawn('npm', ['run', '--silent', name, '--', ...args, ...listenPort], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => npm.once('exit', resolve));
  await new Promise<void>((resolve, reject) => {
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      if (ready.test(output)) resolve();
    };
    npm.stdout.on('data', read);
    npm.stderr.on('data', read);
    npm.once('exit', (code) => reject(new Error(`npm run ${name} exited ${code}: ${output}`)));
  });
  return {
    env,
    ports: SERVING[name]!.ports.map((port) => ports[port]),
    output: () => output,
    async stop(signal: NodeJS.Signals) {
      npm.kill(signal);
      return exited;
    },
  };
}

describe.each(Object.keys(SERVING))('npm run %s', (name) => {
  it.each<NodeJS.Signals>(['SIGTERM', 'SIGINT'])(
    '%s to npm reaches the program: it closes its ports and npm exits 0',
    async (signal) => {
      const served = await serve(name);
      try {
        // Serving: each of its ports is taken.
        for (const port of served.ports) await expect(checkPortFree(port)).rejects.toThrow();
      } finally {
        expect(await served.stop(signal)).toBe(0);
      }
      for (const port of served.ports) await expect(checkPortFree(port)).resolves.toBeUndefined();
    },
  );
});
