/**
 * Jest's globalSetup and globalTeardown: the whole run writes its temporary files into one folder
 * of its own (TMPDIR, which Node's `os.tmpdir()` and the child processes the suites start
 * inherit), and the teardown removes it. What a test left there is named, so a leak is found
 * rather than swept away; only the compile caches of tsx and Node are expected.
 * (Plain JavaScript: Jest loads these before any transform is set up.)
 */
const { mkdtempSync, readdirSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

/**
 * What the tools the suites run keep in the temp folder by design: tsx's and Node's compile
 * caches (.ci/run allows the same two in the machine's temp folder: keep them in step).
 */
const EXPECTED = /^(?:tsx-\d+|node-compile-cache)$/;

module.exports.setup = () => {
  const folder = mkdtempSync(join(tmpdir(), 'plant-store-test-run-'));
  process.env.PLANT_STORE_TEST_TMPDIR = folder;
  process.env.TMPDIR = folder;
};

module.exports.teardown = () => {
  const folder = process.env.PLANT_STORE_TEST_TMPDIR;
  if (!folder) return;
  const left = readdirSync(folder).filter((name) => !EXPECTED.test(name));
  rmSync(folder, { recursive: true, force: true });
  if (left.length > 0) {
    throw new Error(`the tests left ${left.length} entries in the temp folder: ${left.join(', ')}`);
  }
};
