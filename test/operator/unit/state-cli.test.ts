/**
 * `npm run state`'s usage mistakes, refused before any engine is reached: one line, exit code 2.
 * (What the commands do, against a running runtime: test/operator/e2e/state.test.ts.)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCommand } from '../../support/run-cli';

let dataDir: string;
beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'plant-store-state-'));
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

// No engine listens on port 1: a command that got past its usage checks would fail with 1.
const state = (...argv: string[]) =>
  runCommand('state', argv, { PLANT_STORE_DATA_DIR: dataDir, PLANT_STORE_DB_PORT: '1' });

it.each([['save'], ['load']])('%s refuses a name that is a path', async (command) => {
  expect(await state(command, '../etc')).toEqual({
    code: 2,
    stdout: '',
    stderr:
      "state: a state's name is 1 to 64 letters, digits, ., _ or - (not starting with .), not ../etc (see npm run state -- --help)\n",
  });
});
