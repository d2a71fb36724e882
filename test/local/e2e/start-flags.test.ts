/**
 * `npm start`'s debugging and throttling flags as a user (or a debugger) meets them: with
 * `--inspect` every function's inspector answers on the port the banner prints; with
 * `--throttle --throttle-rate N --throttle-burst N` a burst past the bucket is 429; `--help`
 * lists every flag and setting; `npm run openapi -- --help` prints help and writes nothing.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FUNCTION_NAMES } from '../../../lib/definitions/functions';
import { checkPortFree } from '../../../lib/local/process/free-port';
import { OPENAPI_FILE } from '../../../lib/generators/openapi/document';
import { startNpmStart, type ListeningNpmStart } from '../../../lib/npm-start/spawn';
import { uncheckedFetch } from '../../support/http';
import { runBin } from '../../support/run-cli';

/**
 * A first port with the next ones, one per function, free too. Chosen below the kernel's
 * ephemeral range (32768 up on Linux): a port the kernel hands out for any outgoing connection
 * (another suite's, another process's) could be taken between this check and `npm start`.
 */
async function freeRange(count: number): Promise<number> {
  for (;;) {
    const first = 20_000 + Math.floor(Math.random() * (12_000 - count));
    const all = Array.from({ length: count }, (_, i) => checkPortFree(first + i));
    if ((await Promise.allSettled(all)).every((r) => r.status === 'fulfilled')) return first;
  }
}

describe('npm start -- --inspect --throttle --throttle-rate 10 --throttle-burst 10', () => {
  let running: ListeningNpmStart | undefined;
  const output = () => running?.output() ?? '';
  let url: string;
  let token: string;
  const dataDir = mkdtempSync(join(tmpdir(), 'plant-store-flags-'));

  beforeAll(async () => {
    running = await startNpmStart({
      env: {
        PORT: '0',
        PLANT_STORE_DB_PORT: '0',
        PLANT_STORE_DATA_DIR: dataDir,
        PLANT_STORE_INSPECT_PORT: String(await freeRange(FUNCTION_NAMES.length)),
      },
      args: [
        '--memory',
        '--no-watch',
        '--inspect',
        '--throttle',
        '--throttle-rate',
        '10',
        '--throttle-burst',
        '10',
      ],
    });
    url = running.url;
    token = readFileSync(join(dataDir, 'dev-token'), 'utf8').trim();
  }, 300_000);

  afterAll(async () => {
    await running?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('prints one inspector port per function, and each answers /json/list', async () => {
    const printed = [...output().matchAll(/inspector: (\S+) on 127\.0\.0\.1:(\d+)/g)];
    expect(printed.map(([, name]) => name)).toEqual(FUNCTION_NAMES);
    for (const [, , port] of printed) {
      const list = (await (await uncheckedFetch(`http://127.0.0.1:${port}/json/list`)).json()) as {
        type: string;
        webSocketDebuggerUrl: string;
      }[];
      expect(list).toHaveLength(1);
      expect(list[0]!.webSocketDebuggerUrl).toContain(`127.0.0.1:${port}/`);
    }
  });

  it('answers a burst past 10 with 429 Too Many Requests', async () => {
    const answers = await Promise.all(
      Array.from({ length: 30 }, () =>
        fetch(`${url}/plants/1`, { headers: { authorization: `Bearer ${token}` } }),
      ),
    );
    const statuses = answers.map((a) => a.status);
    // The bucket refills at 10 a second while the burst is served: a few more may pass.
    expect(statuses.filter((s) => s === 404).length).toBeGreaterThanOrEqual(10);
    const refused = answers.filter((a) => a.status === 429);
    expect(refused.length).toBeGreaterThan(0);
    expect(await refused[0]!.text()).toBe('{"message":"Too Many Requests"}');
    expect(refused[0]!.headers.get('access-control-allow-origin')).toBe('*');
  });
});

it('npm start -- --help lists every flag and setting', async () => {
  const result = await runBin('local', ['--help']);
  expect(result.code).toBe(0);
  for (const name of [
    '--inspect',
    '--throttle',
    '--throttle-rate',
    '--throttle-burst',
    'PLANT_STORE_SANDBOX_IDLE_SECONDS',
    'PLANT_STORE_INSPECT_PORT',
    'PLANT_STORE_SHOW_METRICS',
  ]) {
    expect(result.stdout).toContain(name);
  }
});

it('npm run openapi -- --help prints help and does not write the file', async () => {
  const before = statSync(OPENAPI_FILE).mtimeMs;
  const result = await runBin('openapi', ['--help']);
  expect(result).toMatchObject({ code: 0, stderr: '' });
  expect(result.stdout).toContain('Usage: npm run openapi');
  expect(statSync(OPENAPI_FILE).mtimeMs).toBe(before);
});
