/**
 * `npm start` itself, as a user runs it: the documented environment variables, the printed URL,
 * dev token and curl command, the console at the URL it prints, a clean stop on SIGTERM; and the
 * edges of `npm start` and `npm run db`: --help, bad arguments and settings, a data directory or
 * a port already in use — each one line, no stack trace.
 */
import { PlantStore } from '@plant-store/client';
import { execFile, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateToken } from '../../../lambda/tokens/token';
import { installedLambdaNode } from '../../../lib/definitions/lambda-node-path.cjs';
import { roleOf } from '../../../lib/lab/bench/memory';
import { freePort } from '../../../lib/local/process/free-port';
import { checkRawAnswer, uncheckedFetch } from '../../support/http';
import { startNpmStart, type ListeningNpmStart } from '../../../lib/npm-start/spawn';
import { runBin, type CliResult } from '../../support/run-cli';
import { until } from '../../support/webhook-receiver';

const temporary: string[] = [];
const tempDir = () => {
  temporary.push(mkdtempSync(join(tmpdir(), 'plant-store-start-')));
  return temporary.at(-1)!;
};
afterAll(() => {
  for (const dir of temporary) rmSync(dir, { recursive: true, force: true });
});

/** One line on stderr, nothing on stdout, no stack trace. */
function expectOneLine(result: CliResult, code: number, line: RegExp) {
  expect(result.code).toBe(code);
  expect(result.stdout).toBe('');
  expect(result.stderr).toMatch(line);
  expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(result.stderr).not.toMatch(/\n\s+at |ERR_IPC/);
}

/** Runs the printed curl command in a shell, as a user would paste it. */
function runCurl(output: string, env: Record<string, string> = {}): Promise<string> {
  const curl = /try: +(curl .*)$/m.exec(output)![1]!;
  return new Promise<string>((resolve, reject) =>
    execFile('sh', ['-c', curl], { env: { ...process.env, ...env } }, (error, stdout) =>
      error ? reject(error) : resolve(stdout),
    ),
  );
}

function stop(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}

it('serves on PORT with the given dev token, prints a curl that works, and stops cleanly', async () => {
  const port = await freePort();
  const { token } = generateToken();
  const dataDir = tempDir();
  const { child, output } = await startNpmStart({
    env: {
      PORT: String(port),
      PLANT_STORE_DB_PORT: '0',
      PLANT_STORE_DATA_DIR: dataDir,
      PLANT_STORE_DEV_TOKEN: token,
    },
    args: ['--memory'],
  });
  expect(output()).toContain(`listening on http://127.0.0.1:${port}`);
  expect(output()).toContain('dev token: from PLANT_STORE_DEV_TOKEN (not printed)');
  expect(output()).not.toContain(token);
  const answer = await runCurl(output(), { PLANT_STORE_DEV_TOKEN: token });
  expect(output()).toContain(`docs:      http://127.0.0.1:${port}/docs`);
  expect(answer).toMatch(/^HTTP\/1\.1 200 OK/);
  checkRawAnswer('POST', `http://127.0.0.1:${port}/plants`, answer);
  expect(answer).toContain('{"name":"Monstera","tag":"aroid"}');
  // The console, at the URL printed (this run's key in its fragment, the URL also in the data
  // directory, 0600): the create listed with the key, refused without it; a foreign Host refused.
  const printed = /console: +(http:\/\/127\.0\.0\.1:\d+\/)#key=([\w-]{43}) /.exec(output())!;
  const [consoleUrl, key] = [printed[1]!, printed[2]!];
  expect(output()).toContain(`; also in ${join(dataDir, 'console-url')}`);
  expect(readFileSync(join(dataDir, 'console-url'), 'utf8')).toBe(`${consoleUrl}#key=${key}\n`);
  expect(statSync(join(dataDir, 'console-url')).mode & 0o777).toBe(0o600);
  expect((await uncheckedFetch(consoleUrl)).status).toBe(200);
  for (const header of [{}, { 'x-plant-store-console': '1' }]) {
    expect((await uncheckedFetch(`${consoleUrl}api/entries`, { headers: header })).status).toBe(
      403,
    );
  }
  const listed = (await (
    await uncheckedFetch(`${consoleUrl}api/entries`, { headers: { 'x-plant-store-console': key } })
  ).json()) as { entries: { functionName: string; source: string; status: number }[] };
  expect(listed.entries).toContainEqual(
    expect.objectContaining({ functionName: 'create-plant', source: 'POST /plants', status: 200 }),
  );
  const foreign = await new Promise<number>((resolve, reject) =>
    request(consoleUrl, { headers: { host: 'rebound.example' } }, (res) => {
      res.resume();
      resolve(res.statusCode!);
    })
      .on('error', reject)
      .end(),
  );
  expect(foreign).toBe(403);
  expect(await stop(child)).toBe(0);
  expect(existsSync(join(dataDir, 'console-url'))).toBe(false);
  expect(output()).toMatch(/POST \/plants 200 [\d.]+ms \S+/);
  expect(output()).toMatch(
    /^\[create-plant\] INFO created id=9007199254740993 \(caller tok_dev, req \S+\)$/m,
  );
});

// Where Lambda's Node is installed, on Linux: the process's parent and executable are in /proc.
(process.platform === 'linux' && installedLambdaNode() ? it : it.skip)(
  "runs on Lambda's Node where it is installed, as the process npm started",
  async () => {
    const node = installedLambdaNode()!;
    const { child, output } = await startNpmStart({
      env: { PORT: '0', PLANT_STORE_DB_PORT: '0', PLANT_STORE_DATA_DIR: tempDir() },
      args: ['--memory', '--no-watch'],
    });
    const pid = Number(/outage: +kill -USR2 (\d+) /.exec(output())![1]);
    try {
      // The shell execs it: npm's own child, the one npm signals, on that Node.
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      expect(roleOf(readFileSync(`/proc/${parent}/cmdline`, 'utf8'), '')).toBe('npm');
      expect(realpathSync(`/proc/${pid}/exe`)).toBe(realpathSync(node));
      expect(await stop(child)).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  },
);

it('kill -USR2, as the banner prints it, takes the engine down (503) and brings it back', async () => {
  const { token } = generateToken();
  const { child, output, url } = await startNpmStart({
    env: {
      PORT: '0',
      PLANT_STORE_DB_PORT: '0',
      PLANT_STORE_DATA_DIR: tempDir(),
      PLANT_STORE_DEV_TOKEN: token,
    },
    args: ['--memory', '--no-watch'],
  });
  // The runtime's own pid (npm is its parent and does not pass a SIGKILL on).
  const pid = Number(/outage: +kill -USR2 (\d+) /.exec(output())![1]);
  try {
    const store = new PlantStore({ baseUrl: url, token });
    await store.createPlant({ id: 3, name: 'kept' }); // also caches the token's decision
    const read = () => fetch(`${url}/plants/3`, { headers: { authorization: `Bearer ${token}` } });
    process.kill(pid, 'SIGUSR2');
    await until(() => output().includes('SIGUSR2: the engine is down'), 'the engine goes down');
    const down = await read();
    expect(down.status).toBe(503);
    expect(down.headers.get('retry-after')).toBe('1');
    process.kill(pid, 'SIGUSR2');
    await until(() => output().includes('SIGUSR2: the engine is back'), 'the engine comes back');
    expect(await (await read()).text()).toBe('{"id":3,"name":"kept"}');
    expect(await stop(child)).toBe(0);
  } finally {
    if (child.exitCode === null) {
      child.kill('SIGKILL');
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
});

it('creates a dev token on first start, keeps it 0600 and reuses it', async () => {
  const dataDir = tempDir();
  const env = {
    PORT: '0',
    PLANT_STORE_DB_PORT: '0',
    PLANT_STORE_DATA_DIR: dataDir,
  };
  const first = await startNpmStart({ env });
  expect(await stop(first.child)).toBe(0);
  const token = readFileSync(join(dataDir, 'dev-token'), 'utf8').trim();
  expect(statSync(join(dataDir, 'dev-token')).mode & 0o777).toBe(0o600);
  expect(first.output()).toContain(`dev token: in ${join(dataDir, 'dev-token')} (0600)`);
  expect(first.output()).not.toContain(token);
  const second = await startNpmStart({ env });
  expect(second.output()).not.toContain(token);
  expect(await runCurl(second.output())).toMatch(/^HTTP\/1\.1 200 OK/);
  const store = new PlantStore({ baseUrl: second.url, token });
  await expect(store.createPlant({ id: 2, name: 'a' })).resolves.toEqual({ name: 'a' });
  expect(await stop(second.child)).toBe(0);
});

it.each([
  [
    'PORT',
    'eighty',
    /^npm start: PORT must be an integer from 0 to 65535, not eighty \(see npm start -- --help\)\n$/,
  ],
  [
    'PLANT_STORE_DEV_TOKEN',
    'hello',
    /^npm start: PLANT_STORE_DEV_TOKEN must be pst_ followed by 43 base64url characters/,
  ],
  [
    'PLANT_STORE_CONCURRENCY',
    '0',
    /^npm start: PLANT_STORE_CONCURRENCY must be from 1 to 1000, not 0/,
  ],
])(
  'refuses %s=%s with one line and exit code 2, before starting anything',
  async (name, value, line) => {
    const dataDir = tempDir();
    const result = await runBin('local', [], { [name]: value, PLANT_STORE_DATA_DIR: dataDir });
    expectOneLine(result, 2, line);
  },
);

it.each([
  ['local', ['--color'], /^npm start: unknown option --color \(see npm start -- --help\)\n$/],
  ['local', ['extra'], /^npm start: unexpected argument extra/],
  ['db', ['--watch'], /^npm run db: unknown option --watch/],
])('%s %j is a usage mistake: one line, exit code 2', async (bin, args, line) => {
  expectOneLine(await runBin(bin, args, { PLANT_STORE_DATA_DIR: tempDir() }), 2, line);
});

it.each([
  ['local', 'Usage: npm start', '--no-watch'],
  ['db', 'Usage: npm run db', '--memory'],
])('%s --help prints the usage and exits 0', async (bin, usage, option) => {
  const result = await runBin(bin, ['--help']);
  expect(result).toMatchObject({ code: 0, stderr: '' });
  expect(result.stdout).toContain(usage);
  expect(result.stdout).toContain(option);
});

describe('while one runtime runs', () => {
  let running: ListeningNpmStart;
  let dataDir: string;
  let port: number;
  let dbPort: number;
  beforeAll(async () => {
    dataDir = tempDir();
    [port, dbPort] = [await freePort(), await freePort()];
    running = await startNpmStart({
      env: {
        PORT: String(port),
        PLANT_STORE_DB_PORT: String(dbPort),
        PLANT_STORE_DATA_DIR: dataDir,
      },
      args: ['--no-watch'],
    });
  }, 300_000);
  afterAll(async () => {
    if (running) expect(await stop(running.child)).toBe(0);
    expect(existsSync(join(dataDir, 'lock'))).toBe(false);
  });

  it.each(['local', 'db'])('%s on the same data directory is one line naming it', async (bin) => {
    const result = await runBin(bin, [], {
      PORT: '0',
      PLANT_STORE_DB_PORT: '0',
      PLANT_STORE_DATA_DIR: dataDir,
    });
    expectOneLine(
      result,
      1,
      new RegExp(
        `^npm (start|run db): the data directory ${dataDir} is in use by process \\d+ \\(npm start or npm run db\\)`,
      ),
    );
  });

  it.each([
    ['PORT', () => ({ PORT: String(port) })],
    ['PLANT_STORE_DB_PORT', () => ({ PLANT_STORE_DB_PORT: String(dbPort) })],
  ])('a port in use names %s', async (setting, ports) => {
    const result = await runBin('local', [], {
      PORT: '0',
      PLANT_STORE_DB_PORT: '0',
      PLANT_STORE_DATA_DIR: tempDir(),
      ...ports(),
    });
    expectOneLine(
      result,
      1,
      new RegExp(`^npm start: port \\d+ is in use .*; set ${setting} to a free port`),
    );
  });

  it('npm run db on a port in use names PLANT_STORE_DB_PORT', async () => {
    const result = await runBin('db', ['--memory'], { PLANT_STORE_DB_PORT: String(dbPort) });
    expectOneLine(result, 1, /^npm run db: port \d+ is in use .*; set PLANT_STORE_DB_PORT/);
  });

  it('holds the lock file, with its pid, while it runs (removed on stop: see afterAll)', () => {
    expect(readFileSync(join(dataDir, 'lock'), 'utf8').trim()).toMatch(/^\d+$/);
  });
});
