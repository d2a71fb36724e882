/**
 * The order `npm test` runs suites in (test/support/sequencer.js): before Jest has timed them,
 * e2e suites first, then integration, then infra, then the rest, each kind largest file first;
 * a suite Jest has timed goes by its time.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Plain JavaScript that Jest loads itself, with no types of its own.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const Sequencer = require('../../support/sequencer.js');

const cacheDirectory = mkdtempSync(join(tmpdir(), 'plant-store-sequencer-'));
afterAll(() => rmSync(cacheDirectory, { recursive: true, force: true }));

const SIZES: Record<string, number> = {
  '/r/test/plants/unit/big.test.ts': 90_000,
  '/r/test/plants/unit/small.test.ts': 1_000,
  '/r/test/infra/stack.test.ts': 20_000,
  '/r/test/local/integration/engine.test.ts': 5_000,
  '/r/test/local/e2e/small.test.ts': 2_000,
  '/r/test/webhook/e2e/big.test.ts': 30_000,
};
const context = {
  config: { cacheDirectory, id: 'plant-store' },
  hasteFS: { getSize: (path: string) => SIZES[path] },
};
const order = (sequencer: { sort(tests: unknown[]): { path: string }[] }) =>
  sequencer.sort(Object.keys(SIZES).map((path) => ({ path, context }))).map((test) => test.path);

it('runs e2e, integration and infra suites before unit suites ten times their size', () => {
  expect(order(new Sequencer({ rootDir: '/r' }))).toEqual([
    '/r/test/webhook/e2e/big.test.ts',
    '/r/test/local/e2e/small.test.ts',
    '/r/test/local/integration/engine.test.ts',
    '/r/test/infra/stack.test.ts',
    '/r/test/plants/unit/big.test.ts',
    '/r/test/plants/unit/small.test.ts',
  ]);
});

it('goes by the measured time once Jest has one', () => {
  const sequencer = new Sequencer({ rootDir: '/r' });
  // Jest's cache of the last run ([failed, duration in ms] by path), as Jest reads it.
  sequencer._getCache = () => ({ '/r/test/plants/unit/small.test.ts': [0, 120_000] });
  expect(order(sequencer)[0]).toBe('/r/test/plants/unit/small.test.ts');
});
