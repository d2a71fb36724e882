/**
 * `npm run db` and `npm run webhook -- listen` stopped by Ctrl-C as a terminal does it: npm
 * forwards the signal to the process that the terminal signalled too, so SIGINT arrives twice.
 * Each must stop once and exit 0; the engine says nothing of a failed stop and leaves no
 * data-directory lock behind.
 */
import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { binArgs } from '../../../lib/cli/bin-entry';
import { freePort } from '../../../lib/local/process/free-port';

const ROOT = join(__dirname, '../../..');

it('stops once on a doubled SIGINT, exits 0 and releases the data directory', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'plant-store-db-signals-'));
  try {
    const port = await freePort();
    // What `npm run db` executes (lib/cli/bin-entry.ts).
    const child = spawn(process.execPath, binArgs('db'), {
      cwd: ROOT,
      env: { ...process.env, PLANT_STORE_DB_PORT: String(port), PLANT_STORE_DATA_DIR: dataDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('engine on')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`npm run db exited with ${code}: ${stderr}`)));
    });
    expect(existsSync(join(dataDir, 'lock'))).toBe(true);

    // Two signals sent at once may merge into one: npm's copy arrives just after the terminal's.
    child.kill('SIGINT');
    await new Promise((resolve) => setTimeout(resolve, 5));
    child.kill('SIGINT');

    expect(await exited).toBe(0);
    expect(stderr).not.toMatch(/stop failed|ERR_SERVER_NOT_RUNNING/);
    expect(existsSync(join(dataDir, 'lock'))).toBe(false);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}, 300_000);

it('webhook listen stops on a doubled SIGINT and exits 0', async () => {
  const child = spawn(
    process.execPath,
    binArgs('webhook', ['listen', '--port', String(await freePort())]),
    {
      cwd: ROOT,
      env: {
        ...process.env,
        PLANT_STORE_WEBHOOK_SECRET: `whsec_${randomBytes(32).toString('base64')}`,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  await new Promise<void>((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (stderr.includes('listening on')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`listen exited with ${code}: ${stderr}`)));
  });
  child.kill('SIGINT');
  await new Promise((resolve) => setTimeout(resolve, 5));
  child.kill('SIGINT');
  expect(await exited).toBe(0);
}, 300_000);
