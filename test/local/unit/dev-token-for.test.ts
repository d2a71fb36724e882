/**
 * Where the CLIs send npm start's dev token when given no token (no sockets): only to the API a
 * live npm start recorded in the data directory; with no record, a record left by a process that
 * is gone, or another URL, a usage error that names PLANT_STORE_TOKEN and why.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { devTokenFile } from '../../../lib/local/dev/dev-token';
import { portsFile } from '../../../lib/local/process/ports-file';
import { devTokenFor } from '../../../lib/npm-start/find';

const dataDir = mkdtempSync(join(tmpdir(), 'plant-store-dev-token-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
const env = { PLANT_STORE_DATA_DIR: dataDir };
const API = 'http://127.0.0.1:45321';
const record = (pid: number, url = API) =>
  writeFileSync(portsFile(dataDir), JSON.stringify({ pid, dbPort: 45322, url }));
const refusal = (why: string) =>
  `no token: set PLANT_STORE_TOKEN (npm start's dev token goes only to a running npm start, and ${why})`;

beforeEach(() => {
  rmSync(portsFile(dataDir), { force: true });
  writeFileSync(devTokenFile(dataDir), 'pst_dev\n');
});

it('a live npm start recorded this URL: its dev token', () => {
  record(process.pid);
  expect(devTokenFor(API, env)).toBe('pst_dev');
  expect(devTokenFor(`${API}/`, env)).toBe('pst_dev');
});

it('no record, or one whose process is gone: refused, though the dev token file is there', () => {
  const none = refusal(`none recorded its ports in ${portsFile(dataDir)}`);
  expect(() => devTokenFor('http://127.0.0.1:3000', env)).toThrow(none);
  record(2 ** 22 + 12_345);
  expect(() => devTokenFor(API, env)).toThrow(none);
});

it('another URL than the one recorded: refused, naming both', () => {
  record(process.pid);
  expect(() => devTokenFor('http://127.0.0.1:3000', env)).toThrow(
    refusal(
      `the one recorded in ${portsFile(dataDir)} listens on ${API}, not http://127.0.0.1:3000`,
    ),
  );
  expect(() => devTokenFor('http://localhost:45321', env)).toThrow(/listens on/);
});

it('a live npm run db (ports recorded, no API): refused, saying what it is', () => {
  writeFileSync(portsFile(dataDir), JSON.stringify({ pid: process.pid, dbPort: 45322 }));
  expect(() => devTokenFor(API, env)).toThrow(
    refusal(`what recorded its ports in ${portsFile(dataDir)} is npm run db, which serves no API`),
  );
});

it('a live npm start that keeps no dev token: refused, saying so', () => {
  record(process.pid);
  rmSync(devTokenFile(dataDir));
  expect(() => devTokenFor(API, env)).toThrow(
    refusal(`the one at ${API} keeps none in ${dataDir}`),
  );
});
