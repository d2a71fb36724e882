/**
 * `npm run verify`'s cases against the local runtime (what `npm start` runs): the one definition
 * in lib/operator/verify/cases.ts, run here as the CLI runs it against a deployment, with every
 * answer also checked against openapi.json. Each case is a test of its own; then what the run
 * must leave: a user's plant as it was, no plant of verify's range, no subscriber. Then the
 * command itself: read-only and scope skips, JUnit, usage, and a broken gateway that must fail
 * naming what it broke.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { binArgs } from '../../../lib/cli/bin-entry';
import { freePort } from '../../../lib/local/process/free-port';
import { reservedBy } from '../../../lib/operator/reserved-ids';
import { VERIFY_CASES } from '../../../lib/operator/verify/cases';
import {
  CLEAN_UP_CASE,
  runVerify,
  type CaseResult,
  type VerifyRun,
} from '../../../lib/operator/verify/run';
import { uncheckedFetch } from '../../support/http';
import { cliEnvironment, storeTokenOf110, useLocalService } from '../../support/local-service';
import { runBesideImpostor, runCommand, type CliResult } from '../../support/run-cli';

const ROOT = join(__dirname, '../../..');

/** `npm run verify -- <args>` as a user runs it (a whole run takes longer than runBin allows). */
function npmRunVerify(
  args: string[],
  env: Record<string, string | undefined> = {},
): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      'npm',
      ['run', '--silent', 'verify', '--', ...args],
      { cwd: ROOT, timeout: 540_000, env: { ...process.env, ...env } },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const service = useLocalService('verify', { authCacheTtlSeconds: 0 });
const USER_PLANT = {
  id: '9100000000000000042',
  body: '{"id":9100000000000000042,"name":"Mine","tag":"verify"}',
};

/** Every plant id the service lists, as written. */
async function allIds(): Promise<string[]> {
  const ids: string[] = [];
  let cursor = '';
  for (;;) {
    const response = await uncheckedFetch(`${service.url}/plants?limit=100${cursor}`, {
      headers: { authorization: `Bearer ${service.devToken}` },
    });
    const text = await response.text();
    ids.push(...[...text.matchAll(/\{"id":(-?\d+)[,}]/g)].map((m) => m[1]!));
    const next = /"next":"([^"]*)"/.exec(text)?.[1];
    if (!next) return ids;
    cursor = `&cursor=${encodeURIComponent(next)}`;
  }
}

async function readUserPlant() {
  const response = await uncheckedFetch(`${service.url}/plants/${USER_PLANT.id}`, {
    headers: { authorization: `Bearer ${service.devToken}` },
  });
  return {
    status: response.status,
    etag: response.headers.get('etag'),
    text: await response.text(),
  };
}

/** A proxy to the service that records the method of every request it forwards. */
async function recordingProxy(methods: string[]): Promise<Server> {
  const proxy = createServer((req, res) => {
    methods.push(req.method!);
    const target = new URL(service.url);
    const forward = request(
      {
        host: target.hostname,
        port: target.port,
        path: req.url,
        method: req.method,
        headers: { ...req.headers, host: target.host },
      },
      (answer) => {
        res.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(res);
      },
    );
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return proxy;
}

async function makeToken(scopes: string): Promise<string> {
  const made = await runCommand(
    'token',
    ['create', '--name', `verify ${scopes}`, '--scopes', scopes],
    cliEnvironment(service),
  );
  expect(made.code).toBe(0);
  return made.stdout.trim();
}

describe('the cases against the local runtime', () => {
  let run: VerifyRun;
  let before: Awaited<ReturnType<typeof readUserPlant>>;
  const results = new Map<string, CaseResult>();

  beforeAll(async () => {
    // A plant of the user's inside verify's own range: verify claims only free ids, so it is
    // never touched (and a plant outside the range never could be).
    const created = await uncheckedFetch(`${service.url}/plants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${service.devToken}`, 'content-type': 'application/json' },
      body: USER_PLANT.body,
    });
    expect(created.status).toBe(200);
    // A second life, so that its ETag is not "1".
    await uncheckedFetch(`${service.url}/plants/${USER_PLANT.id}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${service.devToken}`, 'content-type': 'application/json' },
      body: '{"name":"Mine!"}',
    });
    before = await readUserPlant();
    const port = await freePort();
    run = await runVerify({
      url: service.url,
      token: service.devToken,
      writeOnlyToken: await makeToken('plants:write'),
      timeoutMs: 15_000,
      receiver: {
        url: `http://127.0.0.1:${port}/hook`,
        port,
        targetArgs: [],
        env: { ...process.env, ...cliEnvironment(service) },
        deliveryTimeoutMs: 60_000,
      },
    });
    for (const result of run.results) results.set(result.name, result);
  }, 300_000);

  it('are dozens, each named once', () => {
    const names = VERIFY_CASES.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names.length).toBeGreaterThanOrEqual(60);
  });

  it.each(VERIFY_CASES.map((c) => [c.name]))('%s', (name) => {
    const result = results.get(name);
    expect({ name, result: result?.result, detail: result?.detail }).toEqual({
      name,
      result: 'pass',
      detail: undefined,
    });
  });

  it("leave the user's plant byte for byte as it was, and no plant of verify's range", async () => {
    expect(results.get(CLEAN_UP_CASE)?.result).toBe('pass');
    expect(before).toMatchObject({ status: 200, etag: '"2"' });
    expect(await readUserPlant()).toEqual(before);
    const left = (await allIds()).filter(
      (id) => id !== USER_PLANT.id && reservedBy(BigInt(id)) === 'verify',
    );
    expect(left).toEqual([]);
    const subscribers = await runCommand('webhook', ['list'], cliEnvironment(service));
    expect(subscribers.stdout).toBe('');
  });
});

describe('npm run verify', () => {
  it('--read-only runs only what changes nothing, and says why it skips the rest', async () => {
    // A plant to read back (a user's: outside every reserved range).
    await uncheckedFetch(`${service.url}/plants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${service.devToken}`, 'content-type': 'application/json' },
      body: '{"id":7,"name":"Seven"}',
    });
    const idsBefore = await allIds();
    const dir = mkdtempSync(join(tmpdir(), 'plant-store-verify-junit-'));
    const methods: string[] = [];
    const proxy = await recordingProxy(methods);
    try {
      const junit = join(dir, 'verify.xml');
      const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
      const result = await runCommand('verify', ['--url', url, '--read-only', '--junit', junit], {
        PLANT_STORE_TOKEN: service.devToken,
      });
      const changing = VERIFY_CASES.filter((c) => c.changes);
      expect(result.code).toBe(0);
      for (const c of changing) {
        expect(result.stdout).toContain(
          `skip  ${c.name} — --read-only: it creates or changes plants\n`,
        );
      }
      expect(result.stdout).toContain(
        'pass  read: a listed plant reads back with its ETag, and If-None-Match with it is 304\n',
      );
      // Only GET, OPTIONS and HEAD reach the target: what would send another method is skipped.
      expect(methods.length).toBeGreaterThan(20);
      expect([...new Set(methods)].filter((m) => !['GET', 'OPTIONS', 'HEAD'].includes(m))).toEqual(
        [],
      );
      expect(result.stdout).toMatch(
        /^skip {2}gateway: PUT \/plants .* — --read-only: it sends PUT \/plants$/m,
      );
      expect(result.stderr).toContain(
        'token scopes: plants:read (plants:write and plants:delete not probed: --read-only)\n',
      );
      const [, passed, skipped] = /^(\d+) passed, 0 failed, (\d+) skipped$/m.exec(result.stdout)!;
      expect(Number(passed) + Number(skipped)).toBe(VERIFY_CASES.length);
      expect(Number(skipped)).toBeGreaterThan(changing.length);
      expect(result.stdout + result.stderr).not.toContain(service.devToken);
      const xml = readFileSync(junit, 'utf8');
      expect(xml).toContain(
        `<testsuite name="plant-store verify" tests="${VERIFY_CASES.length}" failures="0" errors="0" skipped="${skipped}"`,
      );
      expect(xml).toContain(
        '<testcase classname="verify.gateway" name="gateway: an unknown token is 403 Forbidden"',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
      proxy.closeAllConnections();
      proxy.close();
    }
    expect(await allIds()).toEqual(idsBefore);
  }, 300_000);

  it('skips by name what the token’s scopes do not allow, learnt from the answers', async () => {
    const reader = await makeToken('plants:read');
    const result = await runCommand('verify', ['--url', service.url], {
      PLANT_STORE_TOKEN: reader,
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      'skip  create: a new plant is 200 with its name and tag, never its id — the token lacks plants:write and plants:delete\n',
    );
    expect(result.stdout).toContain(
      'pass  scopes: each scope is answered as held, or 403 naming it\n',
    );
    expect(result.stdout).toContain('pass  list: limit=0 is 400\n');
    expect(result.stdout).toContain(
      'skip  webhook: add subscribes the receiver and shows its whsec_ secret once — no --receiver',
    );
    expect(result.stderr).toContain('token scopes: plants:read\n');
  }, 300_000);

  it('skips the changes of a token made before 1.2.0, naming why, and fails nothing', async () => {
    const token = await storeTokenOf110(service, 'verify (1.1.0)', [
      'plants:read',
      'plants:write',
      'plants:delete',
    ]);
    const result = await runCommand('verify', ['--url', service.url], { PLANT_STORE_TOKEN: token });
    expect(result.stdout.split('\n').filter((line) => line.startsWith('FAIL'))).toEqual([]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      'skip  put: PUT replaces the members, answered with the next ETag — the token was made before 1.2.0: its plants:write creates, but changes no plant\n',
    );
    expect(result.stdout).toContain(
      'pass  scopes: each scope is answered as held, or 403 naming it\n',
    );
    expect(result.stdout).toContain(
      'pass  create: a new plant is 200 with its name and tag, never its id\n',
    );
  }, 300_000);

  it('a refused token fails one line, the token case, and skips the rest', async () => {
    const unknown = `pst_${'A'.repeat(43)}`;
    const result = await runCommand('verify', ['--url', service.url, '--read-only'], {
      PLANT_STORE_TOKEN: unknown,
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      /^FAIL {2}token: the gateway accepts the token — the gateway refused the token \(403 \{"message":"Forbidden"\}\)/m,
    );
    expect(result.stdout + result.stderr).not.toContain(unknown);
  });

  it('--token works but warns that it shows in ps and history', async () => {
    const result = await runCommand(
      'verify',
      ['--url', service.url, '--read-only', '--token', service.devToken],
      {
        PLANT_STORE_TOKEN: '',
      },
    );
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(
      'verify: --token shows in ps and shell history; prefer PLANT_STORE_TOKEN\n',
    );
    expect(result.stdout + result.stderr).not.toContain(service.devToken);
  });

  it.each([
    [
      ['--url', 'ftp://x'],
      'verify: --url must be an http(s) URL, got ftp://x (see npm run verify -- --help)\n',
    ],
    [
      ['--url', 'http://x'],
      'verify: no token: set PLANT_STORE_TOKEN (see npm run verify -- --help)\n',
    ],
    [
      ['--start', '--url', 'http://x'],
      'verify: --url, --outputs and --start go apart (see npm run verify -- --help)\n',
    ],
    [
      ['--receiver', 'http://x.example'],
      'verify: --receiver-port is needed: the --receiver URL names no port (see npm run verify -- --help)\n',
    ],
    [['--nope'], 'verify: unknown option --nope (see npm run verify -- --help)\n'],
  ])('%j is a usage mistake: one line, exit 2', async (args, stderr) => {
    const result = await runCommand('verify', args, {
      PLANT_STORE_TOKEN: '',
      PLANT_STORE_DATA_DIR: join(tmpdir(), 'plant-store-no-such-dir'),
    });
    expect(result).toEqual({ code: 2, stdout: '', stderr });
  });

  it('without --url and no npm start recorded, the dev token goes nowhere: PORT gets nothing', async () => {
    const { result, heard, dataDir } = await runBesideImpostor('verify', service.devToken);
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: `verify: no token: set PLANT_STORE_TOKEN (npm start's dev token goes only to a running npm start, and none recorded its ports in ${join(dataDir, 'ports.json')}) (see npm run verify -- --help)\n`,
    });
    expect(heard).toEqual([]);
  });

  it('--help names the options and the exit codes', async () => {
    const result = await runCommand('verify', ['--help']);
    expect(result.code).toBe(0);
    for (const option of [
      '--url',
      '--start',
      '--read-only',
      '--receiver',
      '--junit',
      '--token',
      'Exit code: 0',
    ]) {
      expect(result.stdout).toContain(option);
    }
  });
});

describe('a broken gateway in front of it', () => {
  let proxy: Server;
  beforeAll(async () => {
    // Drops ETag from every read, and answers 200 where a stale If-Match was refused 412.
    proxy = createServer((req, res) => {
      const target = new URL(service.url);
      const forward = request(
        {
          host: target.hostname,
          port: target.port,
          path: req.url,
          method: req.method,
          // The local gateway answers only to its own Host (as a proxy sends it on).
          headers: { ...req.headers, host: target.host },
        },
        (answer) => {
          const headers = { ...answer.headers };
          if (req.method === 'GET') delete headers.etag;
          const status =
            answer.statusCode === 412 && req.headers['if-match'] ? 200 : answer.statusCode!;
          res.writeHead(status, headers);
          answer.pipe(res);
        },
      );
      req.pipe(forward);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  });
  afterAll(
    () =>
      new Promise<void>((resolve) => {
        proxy.close(() => resolve());
        proxy.closeAllConnections();
      }),
  );

  it('fails it (exit 1), naming the read without an ETag and the stale If-Match answered 200', async () => {
    const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    const result = await npmRunVerify(['--url', url], { PLANT_STORE_TOKEN: service.devToken });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      /^FAIL {2}read: a plant is answered with every member and a strong ETag — expected 200 etag: .* got 200 etag: \(none\)/m,
    );
    expect(result.stdout).toMatch(
      /^FAIL {2}if-match: a stale If-Match on PATCH is 412, nothing changed — expected 412 .* got 200 /m,
    );
    expect(result.stdout).toMatch(/^\d+ passed, [1-9]\d* failed, \d+ skipped$/m);
    expect(result.stdout).toMatch(
      /^pass {2}clean-up: every plant and subscriber this run created is deleted$/m,
    );
    const left = (await allIds()).filter(
      (id) => id !== USER_PLANT.id && reservedBy(BigInt(id)) === 'verify',
    );
    expect(left).toEqual([]);
  }, 300_000);
});

describe('an interrupted run', () => {
  const rangeLeft = async () =>
    (await allIds()).filter((id) => id !== USER_PLANT.id && reservedBy(BigInt(id)) === 'verify');

  it('SIGINT mid-run deletes what it created, says so and exits 1', async () => {
    const child = spawn(process.execPath, binArgs('verify', ['--url', service.url]), {
      cwd: ROOT,
      env: { ...process.env, PLANT_STORE_TOKEN: service.devToken },
    });
    let stdout = '';
    let interrupted = false;
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      // Mid-run, among the cases that create plants.
      if (!interrupted && /^pass {2}create: /m.test(stdout)) {
        interrupted = true;
        child.kill('SIGINT');
      }
    });
    const [code, signal] = await new Promise<[number | null, string | null]>((resolve) =>
      child.on('exit', (c, s) => resolve([c, s])),
    );
    expect({ code, signal }).toEqual({ code: 1, signal: null });
    expect(stdout).toMatch(
      /^FAIL {2}interrupted: every case ran to its end — stopped by a signal$/m,
    );
    expect(stdout).toMatch(
      /^pass {2}clean-up: every plant and subscriber this run created is deleted$/m,
    );
    expect(await rangeLeft()).toEqual([]);
  }, 300_000);

  it('a leftover of its own at an int64 edge (its name marks it) is deleted first, saying so', async () => {
    const edge = '9223372036854775807';
    const created = await uncheckedFetch(`${service.url}/plants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${service.devToken}`, 'content-type': 'application/json' },
      body: `{"id":${edge},"name":"verify edge","tag":"verify-left"}`,
    });
    expect(created.status).toBe(200);
    const run = await runVerify(
      { url: service.url, token: service.devToken, timeoutMs: 15_000 },
      VERIFY_CASES.filter((c) => c.name.includes(edge)),
    );
    expect(run.results.map(({ name, result }) => [name, result])).toEqual([
      [`leftover: the plant ${edge} an interrupted run left is deleted`, 'pass'],
      [`int64: the id ${edge} is stored, read and listed with every digit`, 'pass'],
      [CLEAN_UP_CASE, 'pass'],
    ]);
    expect(await rangeLeft()).toEqual([]);
  }, 300_000);
});

it('--start verifies an npm start of its own, every case, and leaves nothing in the temp folder', async () => {
  const temp = tmpdir();
  const before = readdirSync(temp).filter((name) => name.startsWith('plant-store-verify-'));
  // As a user's shell runs it: the entry itself silences the AWS SDK's Node version warning.
  const result = await npmRunVerify(['--start'], {
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: undefined,
  });
  expect(result.stderr).not.toContain('NodeVersionSupportWarning');
  expect(result.stdout).toMatch(
    new RegExp(`^${VERIFY_CASES.length + 1} passed, 0 failed, 0 skipped$`, 'm'),
  );
  expect(result.code).toBe(0);
  expect(result.stderr).toMatch(
    /verify: npm start at http:\/\/127\.0\.0\.1:\d+ \(started for this run\), token scopes: plants:read plants:write plants:delete$/m,
  );
  expect(readdirSync(temp).filter((name) => name.startsWith('plant-store-verify-'))).toEqual(
    before,
  );
}, 600_000);
