/**
 * Where the CLIs look for the local engine (no sockets): `PLANT_STORE_DB_PORT` first, then the
 * ports a live `npm start` recorded in the data directory, then the default; a record left by a
 * process that is gone is ignored; the unreachable line names the URL, where it came from and
 * the variable.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { portsFile } from '../../../lib/local/process/ports-file';
import { localEngineTarget } from '../../../lib/local/process/settings';

const dataDir = mkdtempSync(join(tmpdir(), 'plant-store-target-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
const record = (pid: number, dbPort: number) =>
  writeFileSync(portsFile(dataDir), JSON.stringify({ pid, dbPort }));

it('with nothing recorded: the default port, and a line naming it, the directory and the variable', () => {
  rmSync(portsFile(dataDir), { force: true });
  const target = localEngineTarget({ PLANT_STORE_DATA_DIR: dataDir });
  expect(target.endpoint).toBe('http://127.0.0.1:8000');
  expect(target.unreachable).toBe(
    `cannot reach the local engine at http://127.0.0.1:8000 (the default: no npm start or npm run db recorded its ports in ${dataDir}); start npm start (or npm run db), or set PLANT_STORE_DB_PORT to the engine port its banner prints`,
  );
});

it('a live process recorded its port: that one', () => {
  record(process.pid, 45123);
  const target = localEngineTarget({ PLANT_STORE_DATA_DIR: dataDir });
  expect(target.endpoint).toBe('http://127.0.0.1:45123');
  expect(target.unreachable).toContain(
    `(recorded by process ${process.pid} in ${portsFile(dataDir)})`,
  );
});

it('PLANT_STORE_DB_PORT wins over the record', () => {
  record(process.pid, 45123);
  expect(
    localEngineTarget({ PLANT_STORE_DATA_DIR: dataDir, PLANT_STORE_DB_PORT: '8123' }).endpoint,
  ).toBe('http://127.0.0.1:8123');
});

it('a record whose process is gone, or that is malformed, is ignored', () => {
  record(2 ** 22 + 12_345, 45123);
  expect(localEngineTarget({ PLANT_STORE_DATA_DIR: dataDir }).endpoint).toBe(
    'http://127.0.0.1:8000',
  );
  writeFileSync(portsFile(dataDir), '{"pid":');
  expect(localEngineTarget({ PLANT_STORE_DATA_DIR: dataDir }).endpoint).toBe(
    'http://127.0.0.1:8000',
  );
});
