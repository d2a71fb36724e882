/**
 * `npm run smoke` as a user runs it, the token in `PLANT_STORE_TOKEN`, against the local runtime
 * (`startLocal`, as `npm start` runs it): every step passes or is skipped for a route this build
 * lacks, each request leaves one readable function line, and usage mistakes are one line with
 * exit code 2. Its options and failures are checked through the same `main` in this process
 * (`runCommand`); npm runs it where finding npm start is the point.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { binArgs } from '../../../lib/cli/bin-entry';
import { freePort } from '../../../lib/local/process/free-port';
import { portsFile, recordPorts } from '../../../lib/local/process/ports-file';
import {
  formatSmoke,
  randomSmokeId,
  runSmoke,
  smokePassed,
  SMOKE_ID_RANGE,
} from '../../../lib/operator/smoke';
import { runReleaseCli } from '../../../lib/release/release-cli';
import { uncheckedFetch } from '../../support/http';
import { useLocalService } from '../../support/local-service';
import { runBesideImpostor, runCommand, type CliResult } from '../../support/run-cli';

const ROOT = join(__dirname, '../../..');
const logs: string[] = [];
/** Called with each of the service's log lines, when a test wants to act on one. */
let onLog: ((line: string) => void) | undefined;
// Show the functions' EMF lines too (compactly), to count them; read when the service starts.
beforeAll(() => {
  process.env.PLANT_STORE_SHOW_METRICS = '1';
});
const service = useLocalService('smoke', {
  authCacheTtlSeconds: 0,
  log: (line) => {
    logs.push(line);
    onLog?.(line);
  },
});

afterAll(async () => {
  delete process.env.PLANT_STORE_SHOW_METRICS;
});

function npmRunSmoke(args: string[], env: Record<string, string>): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      'npm',
      ['run', '--silent', 'smoke', '--', ...args],
      { cwd: ROOT, timeout: 150_000, env: { ...process.env, ...env } },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

it('npm run smoke passes against npm start, one function line per request', async () => {
  const result = await npmRunSmoke(['--url', service.url], {
    PLANT_STORE_TOKEN: service.devToken,
  });
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  const rows = result.stdout.split('\n');
  for (const step of ['create', 'retry', 'conflict', 'invalid', 'no token', 'bad token']) {
    expect(rows.find((row) => row.startsWith(`${step} `))).toMatch(/ pass$/);
  }
  expect(rows.find((row) => row.startsWith('content type '))).toMatch(/ 415 +pass$/);
  expect(rows.find((row) => row.startsWith('change '))).toMatch(/If-Match "1" +200 +200 +pass$/);
  expect(rows.find((row) => row.startsWith('stale change '))).toMatch(/ 412 +412 +pass$/);
  expect(
    logs.filter((line) => /^\[patch-plant\] INFO /.test(line)).map((l) => l.split(' ')[2]),
  ).toEqual(['updated', 'precondition-failed']);
  expect(result.stdout).toMatch(/^\d+ passed, 0 failed, \d+ skipped \(\d+ steps\)$/m);
  const id = /POST \/plants id=(\d+)/.exec(result.stdout)![1]!;
  expect(BigInt(id) >= SMOKE_ID_RANGE.min && BigInt(id) < SMOKE_ID_RANGE.max).toBe(true);

  const outcomes = logs
    .filter((line) => /^\[create-plant\] INFO /.test(line))
    .map((line) => line.split(' ')[2]);
  expect(outcomes).toEqual(['created', 'unchanged', 'conflict', 'invalid', 'invalid']);
  const authorizer = logs.filter((line) => line.startsWith('[authorizer] '));
  expect(authorizer.filter((line) => line.includes(' denied reason=unknown '))).toHaveLength(1);
  expect(logs.join('\n')).not.toContain(service.devToken);
  expect(logs.some((line) => line.includes('_aws'))).toBe(false);

  // One metric line per request, adding up to the outcomes logged.
  const metrics = (fn: string) =>
    logs.filter((line) => line.startsWith(`[${fn}] metrics `)).map((line) => line.split(' ')[2]);
  expect(metrics('create-plant')).toEqual([
    'PlantsCreated=1',
    'RetriesAnswered=1',
    'Conflicts=1',
    'ValidationFailures=1',
    'ValidationFailures=1',
  ]);
  expect(metrics('authorizer')).toHaveLength(authorizer.filter((l) => / INFO /.test(l)).length);
});

it('--token still works, instead of PLANT_STORE_TOKEN, but warns that it shows in ps and history', async () => {
  const result = await runCommand('smoke', ['--url', service.url, '--token', service.devToken], {
    PLANT_STORE_TOKEN: 'pst_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
  });
  expect(result.stdout).toMatch(/^\d+ passed, 0 failed, 0 skipped/m);
  expect(result.code).toBe(0);
  expect(result.stderr).toBe(
    'smoke: --token shows in ps and shell history; prefer PLANT_STORE_TOKEN\n',
  );
  expect(result.stdout + result.stderr).not.toContain(service.devToken);
});

it('fails (exit 1) when nothing answers, with one failed step', async () => {
  const port = await freePort();
  const result = await runCommand('smoke', ['--url', `http://127.0.0.1:${port}`, '--token', 'x']);
  expect(result.code).toBe(1);
  expect(result.stdout).toMatch(/^create .* fail: no answer: ECONNREFUSED$/m);
  expect(result.stdout).toContain('0 passed, 1 failed, 0 skipped (1 steps)');
});

it.each([
  ['no npm start recorded its ports', undefined],
  ['the npm start that recorded them is gone', 2 ** 22 + 12_345],
])(
  'without --url, when %s, the dev token goes nowhere: whatever listens on PORT gets nothing',
  async (_, pid) => {
    const { result, heard, dataDir } = await runBesideImpostor(
      'smoke',
      service.devToken,
      (dir, port) => {
        if (pid === undefined) return;
        writeFileSync(
          portsFile(dir),
          JSON.stringify({ pid, dbPort: service.dbPort, url: `http://127.0.0.1:${port}` }),
        );
      },
    );
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: `smoke: no token: set PLANT_STORE_TOKEN (npm start's dev token goes only to a running npm start, and none recorded its ports in ${portsFile(dataDir)}) (see npm run smoke -- --help)\n`,
    });
    expect(heard).toEqual([]);
  },
);

it('without --url it finds npm start where it recorded its ports, on any port', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'plant-store-smoke-'));
  try {
    writeFileSync(join(dataDir, 'dev-token'), `${service.devToken}\n`, { mode: 0o600 });
    // As npm start records itself (this process stands for it: the record's pid must be alive).
    const unrecord = await recordPorts(dataDir, { dbPort: service.dbPort, url: service.url });
    const env = { PLANT_STORE_DATA_DIR: dataDir, PLANT_STORE_TOKEN: '' };
    const inherited = Object.fromEntries(
      Object.entries(process.env).filter(([name]) => name !== 'PORT'),
    );
    const result = await new Promise<CliResult>((resolve) => {
      execFile(
        'npm',
        ['run', '--silent', 'smoke'],
        { cwd: ROOT, timeout: 150_000, env: { ...inherited, ...env } },
        (error, stdout, stderr) =>
          resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
      );
    });
    expect(result.stdout).toMatch(/^\d+ passed, 0 failed, 0 skipped/m);
    expect(result.code).toBe(0);
    await unrecord();
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

it('Ctrl-C after the create deletes the plant, says so and exits 1', async () => {
  const child = spawn(process.execPath, binArgs('smoke', ['--url', service.url]), {
    cwd: ROOT,
    env: { ...process.env, PLANT_STORE_TOKEN: service.devToken },
  });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  // The plant is stored: the checks have begun, and a clean-up is owed.
  onLog = (line) => {
    if (/^\[create-plant\] INFO created /.test(line)) child.kill('SIGINT');
  };
  try {
    const [code, signal] = await new Promise<[number | null, string | null]>((resolve) =>
      child.on('exit', (c, s) => resolve([c, s])),
    );
    expect({ code, signal }).toEqual({ code: 1, signal: null });
  } finally {
    onLog = undefined;
  }
  // The signal may reach it before the create's answer does: then the create is cut short.
  expect(stdout).toMatch(
    /^create +POST \/plants id=\d+ +200 +(200 +pass|- +skip: cut short by the stop \(the delete follows\))$/m,
  );
  expect(stdout).toMatch(
    /^interrupted +- +0 +- +fail: stopped by a signal; the checks after the last step above were not sent$/m,
  );
  expect(stdout).toMatch(/^delete +DELETE \/plants\/\d+ +204 +204 +pass$/m);
  const id = /POST \/plants id=(\d+)/.exec(stdout)![1]!;
  const read = await uncheckedFetch(`${service.url}/plants/${id}`, {
    headers: { authorization: `Bearer ${service.devToken}` },
  });
  expect(read.status).toBe(404);
}, 150_000);

it('stopped after the create, it sends no further check, deletes the plant and fails', async () => {
  const stop = new AbortController();
  const heard: string[] = [];
  onLog = (line) => {
    if (/^\[create-plant\] INFO unchanged /.test(line)) stop.abort();
    if (stop.signal.aborted) heard.push(line);
  };
  let steps: Awaited<ReturnType<typeof runSmoke>>;
  try {
    steps = await runSmoke({ url: service.url, token: service.devToken, signal: stop.signal });
  } finally {
    onLog = undefined;
  }
  const verdicts = steps.map((s) => `${s.name} ${s.result}`);
  expect(verdicts[0]).toBe('create pass');
  expect(verdicts.slice(-2)).toEqual(['interrupted fail', 'delete pass']);
  expect(smokePassed(steps)).toBe(false);
  // The retry (or, had its answer come first, the conflict) was the last check sent.
  expect(heard.filter((line) => /^\[create-plant\] INFO invalid /.test(line))).toEqual([]);
  const id = /id=(\d+)/.exec(steps[0]!.request)![1]!;
  const read = await uncheckedFetch(`${service.url}/plants/${id}`, {
    headers: { authorization: `Bearer ${service.devToken}` },
  });
  expect(read.status).toBe(404);
});

it('a token the service refuses stops at the first step: token refused', async () => {
  const unknown = `pst_${'A'.repeat(43)}`;
  const result = await runCommand('smoke', ['--url', service.url], {
    PLANT_STORE_TOKEN: unknown,
  });
  expect(result.code).toBe(1);
  expect(result.stdout).toMatch(
    /^create +POST \/plants id=\d+ +200 +403 +fail: token refused \(403 unknown, expired or revoked here, or made for another deployment\): the other steps need one this service accepts$/m,
  );
  expect(result.stdout).toContain('0 passed, 1 failed, 0 skipped (1 steps)');
  expect(result.stdout + result.stderr).not.toContain(unknown);
});

const URL_WORDING = 'must be an http(s) URL like the stack output ApiUrl, got';
it.each([
  [
    [],
    `smoke: no token: set PLANT_STORE_TOKEN (npm start's dev token goes only to a running npm start, and none recorded its ports in ${join(tmpdir(), 'plant-store-no-such-dir', 'ports.json')}) (see npm run smoke -- --help)\n`,
  ],
  [['--url', 'http://x'], 'smoke: no token: set PLANT_STORE_TOKEN (see npm run smoke -- --help)\n'],
  [
    ['--url', 'ftp://x', '--token', 't'],
    `smoke: --url ${URL_WORDING} ftp://x (see npm run smoke -- --help)\n`,
  ],
  // The URL is judged before the token is looked for.
  [['--url', 'notaurl'], `smoke: --url ${URL_WORDING} notaurl (see npm run smoke -- --help)\n`],
  [['--url'], 'smoke: --url needs a value (see npm run smoke -- --help)\n'],
  [['--nope'], 'smoke: unknown option --nope (see npm run smoke -- --help)\n'],
])('%j is a usage mistake: one line, exit 2', async (args, stderr) => {
  const result = await runCommand('smoke', args, {
    PLANT_STORE_TOKEN: '',
    PLANT_STORE_DATA_DIR: join(tmpdir(), 'plant-store-no-such-dir'),
  });
  expect(result).toEqual({ code: 2, stdout: '', stderr });
});

it("the deploy job's start check passes against npm start: the authorizer refuses a made-up token", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'plant-store-start-'));
  try {
    const outputs = join(dir, 'cdk-outputs.json');
    writeFileSync(outputs, JSON.stringify({ PlantStore: { ApiUrl: `${service.url}/` } }));
    const out: string[] = [];
    const err: string[] = [];
    const code = await runReleaseCli(['check-start', outputs], {
      out: (line) => out.push(line),
      err: (line) => err.push(line),
      env: {},
    });
    expect({ code, out, err }).toEqual({
      code: 0,
      out: ['The functions start: the authorizer refused a made-up token (403), as it must.'],
      err: [],
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

it('--help explains the steps, the token and the exit codes', async () => {
  const result = await runCommand('smoke', ['--help']);
  expect(result.code).toBe(0);
  expect(result.stdout).toContain('PLANT_STORE_TOKEN=<token> npm run smoke -- --url <ApiUrl>');
  expect(result.stdout).toContain('--token <token>');
  expect(result.stdout).toContain('Exit code: 0');
});

it('draws ids inside the range and formats a table', () => {
  for (let i = 0; i < 100; i++) {
    const id = randomSmokeId();
    expect(id >= SMOKE_ID_RANGE.min && id < SMOKE_ID_RANGE.max).toBe(true);
  }
  const steps = [
    { name: 'a', request: 'GET /', expected: 200, got: 500, result: 'fail', detail: 'x' },
    { name: 'b', request: 'GET /', expected: 204, got: 0, result: 'skip', detail: '' },
  ] as const;
  expect(formatSmoke(steps)).toBe(
    [
      'step  request  expected  got  result',
      'a     GET /    200       500  fail: x',
      'b     GET /    204       -    skip',
      '',
      '0 passed, 1 failed, 1 skipped (2 steps)',
    ].join('\n'),
  );
  expect(smokePassed(steps)).toBe(false);
  expect(smokePassed([steps[1]])).toBe(true);
});
