/**
 * What `npm start` leaves for the developer outside the API: a private data directory (0700
 * directories, 0600 files, one left 0644 by an earlier version fixed), its ports recorded there
 * so that the CLIs in another terminal find it on whatever ports it runs (an explicit
 * `PLANT_STORE_DB_PORT` still wins, and the record goes when it stops), and the banner saying
 * the settings that differ from their defaults.
 */
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../../lib/local/process/free-port';
import { portsFile } from '../../../lib/local/process/ports-file';
import { startNpmStart, type ListeningNpmStart } from '../../../lib/npm-start/spawn';
import { runBin, runCommand } from '../../support/run-cli';

const dataDir = mkdtempSync(join(tmpdir(), 'plant-store-settings-'));
let running: ListeningNpmStart;
let dbPort: number;
beforeAll(async () => {
  // As an earlier version left it: the default umask's modes.
  chmodSync(dataDir, 0o755);
  mkdirSync(join(dataDir, 'old'), { mode: 0o755 });
  writeFileSync(join(dataDir, 'old', 'notes'), 'x', { mode: 0o644 });
  running = await startNpmStart({
    env: {
      PORT: '0',
      PLANT_STORE_DB_PORT: '0',
      PLANT_STORE_DATA_DIR: dataDir,
      PLANT_STORE_AUTH_CACHE_TTL: '7',
      PLANT_STORE_WEBHOOK_RETRY_SCALE: '0.01',
    },
  });
  dbPort = Number(/engine: +http:\/\/127\.0\.0\.1:(\d+)/.exec(running.output())![1]);
});
afterAll(async () => {
  await running?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Every path under `dir` with its permission bits (links are not followed). */
function modes(dir: string): [string, 'dir' | 'file', number][] {
  const found: [string, 'dir' | 'file', number][] = [];
  const walk = (path: string) => {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) return;
    found.push([path, stat.isDirectory() ? 'dir' : 'file', stat.mode & 0o777]);
    if (stat.isDirectory()) for (const name of readdirSync(path)) walk(join(path, name));
  };
  walk(dir);
  return found;
}

it('keeps the data directory and everything under it private: 0700 and 0600', async () => {
  // A write, so that the engine has written its files too.
  const token = (
    await runCommand('token', ['create', '--name', 'modes'], { PLANT_STORE_DATA_DIR: dataDir })
  ).stdout.trim();
  expect(token).toMatch(/^pst_/);
  const all = modes(dataDir);
  expect(all.filter(([path]) => path.includes(`${join(dataDir, 'db')}`)).length).toBeGreaterThan(1);
  for (const [path, kind, mode] of all) {
    expect([path, mode]).toEqual([path, kind === 'dir' ? 0o700 : 0o600]);
  }
});

it('the CLIs find it on its ports through the record in the data directory', async () => {
  expect(dbPort).not.toBe(8000);
  const tokens = await runCommand('token', ['list'], { PLANT_STORE_DATA_DIR: dataDir });
  expect(tokens).toMatchObject({ code: 0 });
  expect(tokens.stdout).toMatch(/^tok_dev\t/m);
  const subscribers = await runCommand('webhook', ['list'], { PLANT_STORE_DATA_DIR: dataDir });
  expect(subscribers).toMatchObject({
    code: 0,
    stderr: `no subscribers in the local engine at http://127.0.0.1:${dbPort}\n`,
  });
});

it('an explicit PLANT_STORE_DB_PORT wins, and a failure names the URL and the variable', async () => {
  const closed = await freePort();
  for (const cli of ['token', 'webhook']) {
    const result = await runBin(cli, ['list'], {
      PLANT_STORE_DATA_DIR: dataDir,
      PLANT_STORE_DB_PORT: String(closed),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `cannot reach the local engine at http://127.0.0.1:${closed} (from PLANT_STORE_DB_PORT)`,
    );
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
  }
});

it('says the settings that differ from their defaults in the banner', () => {
  expect(running.output()).toContain(
    'setting:   PLANT_STORE_AUTH_CACHE_TTL=7 (decisions cached 7 s; deployed: 300)',
  );
  expect(running.output()).toContain(
    'setting:   PLANT_STORE_WEBHOOK_RETRY_SCALE=0.01 (webhook retry delays: 50 ms, 3 s, 18 s, 1 min 12 s, 3 min, then 6 min × 7 (46 min 33 s in all))',
  );
});

it('removes the record when it stops', async () => {
  expect(existsSync(portsFile(dataDir))).toBe(true);
  expect(await running.stop()).toBe(0);
  expect(existsSync(portsFile(dataDir))).toBe(false);
});
