/**
 * `npm run generate` as CI and a maintainer run it, on a copy of the project: with `--check` a
 * stale openapi.json, a stale generated block, a block no producer fills and a missing event are
 * each named, exit code 1, and nothing is written; `npm run generate` brings them back, and
 * `--check` then exits 0.
 * (That the committed files are fresh is `npm run check`'s own `npm run generate -- --check`.)
 */
import { execFile } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { BIN_NODE_FLAGS } from '../../../lib/cli/bin-entry';
import { PROJECT_ROOT } from '../../../lib/definitions/bundling';

/** What the copy leaves out: installed, built or kept data. */
const SKIPPED = new Set(['node_modules', '.git', 'cdk.out', '.plant-store', 'dist', 'coverage']);

let copy: string;
beforeAll(() => {
  copy = mkdtempSync(join(tmpdir(), 'plant-store-generate-'));
  cpSync(PROJECT_ROOT, copy, {
    recursive: true,
    filter: (source) => !SKIPPED.has(relative(PROJECT_ROOT, source).split(/[\\/]/).at(-1)!),
  });
  symlinkSync(join(PROJECT_ROOT, 'node_modules'), join(copy, 'node_modules'), 'dir');
});
afterAll(() => rmSync(copy, { recursive: true, force: true }));

/** `npm run generate` in the copy, as its package.json runs it. */
function generate(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...BIN_NODE_FLAGS, 'bin/generate.ts', ...args],
      { cwd: copy },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    );
  });
}

const inCopy = (path: string) => join(copy, path);
/** A page of the copy with a block whose producer gives a figure from the code. */
const PAGE = 'docs/generated-block.md';
/** A page of the copy with a block no producer fills. */
const UNKNOWN = 'docs/unknown-block.md';
const staleBlock =
  '# A page\n\n<!-- BEGIN GENERATED: retry-schedule -->\n\n- 12 attempts\n\n<!-- END GENERATED: retry-schedule -->\n';

it('--check names a stale openapi.json, block and event, exit code 1, and writes nothing', async () => {
  const openapi = readFileSync(inCopy('openapi.json'), 'utf8');
  const stale = openapi.replace('"title": "Plant Store"', '"title": "Plant Shop"');
  writeFileSync(inCopy('openapi.json'), stale);
  writeFileSync(inCopy(PAGE), staleBlock);
  writeFileSync(inCopy(UNKNOWN), staleBlock.replaceAll('retry-schedule', 'retry-shedule'));
  unlinkSync(inCopy('events/get-plant.json'));

  const result = await generate('--check');
  expect(result.stderr.split('\n')).toEqual(
    expect.arrayContaining([
      'npm run generate: stale: openapi.json',
      'npm run generate: stale: events/get-plant.json',
      `npm run generate: stale: ${PAGE}: block retry-schedule`,
      `npm run generate: ${UNKNOWN}: unknown block retry-shedule (no producer of that name in lib/generators/blocks.ts)`,
    ]),
  );
  expect(result.code).toBe(1);
  expect(readFileSync(inCopy('openapi.json'), 'utf8')).toBe(stale);
  expect(readFileSync(inCopy(PAGE), 'utf8')).toBe(staleBlock);
  expect(existsSync(inCopy('events/get-plant.json'))).toBe(false);
}, 300_000);

it('npm run generate writes them back; --check then exits 0', async () => {
  unlinkSync(inCopy(UNKNOWN));
  const written = await generate();
  expect(written.stdout.split('\n')).toEqual(
    expect.arrayContaining([
      'wrote openapi.json',
      'wrote events/get-plant.json',
      `wrote ${PAGE}: block retry-schedule`,
    ]),
  );
  expect(written.code).toBe(0);
  expect(readFileSync(inCopy('openapi.json'), 'utf8')).toBe(
    readFileSync(join(PROJECT_ROOT, 'openapi.json'), 'utf8'),
  );
  expect(readFileSync(inCopy(PAGE), 'utf8')).toContain('- **Attempts:** 13,');
  expect(await generate('--check')).toEqual({ code: 0, stdout: '', stderr: '' });
}, 300_000);
