/**
 * `npm run release -- keep`: a release's folder appears whole or not at all, so a failure on one
 * stack leaves nothing to refuse the retry; a failed `cdk synth` is reported by what it said.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { failureExitCode } from '../../../lib/cli/run';
import { childFailure, keep, type Synth } from '../../../lib/release/keep';
import { RELEASE_STACKS } from '../../../lib/release/releases';

let releasesDir: string;
beforeEach(() => {
  releasesDir = mkdtempSync(join(tmpdir(), 'plant-store-keep-'));
});
afterEach(() => rmSync(releasesDir, { recursive: true, force: true }));

/** A synth that writes a template, or fails for the stacks in `failing`. */
const fakeSynth =
  (failing: readonly string[] = []): Synth =>
  async (stackName, _context, outDir) => {
    if (failing.includes(stackName)) throw new Error(`cdk synth ${stackName} failed: boom`);
    mkdirSync(outDir, { recursive: true });
    writeFileSync(join(outDir, `${stackName}.template.json`), '{}');
  };

it('leaves no folder when a later stack fails, and the retry keeps the release', async () => {
  const second = RELEASE_STACKS[1].stackName;
  await expect(keep('9.9.9', { releasesDir, synth: fakeSynth([second]) })).rejects.toThrow(
    `cdk synth ${second} failed: boom`,
  );
  expect(readdirSync(releasesDir)).toEqual([]);

  expect(await keep('9.9.9', { releasesDir, synth: fakeSynth() })).toBe(
    `releases/9.9.9: ${RELEASE_STACKS.map((s) => s.stackName).join(', ')} and openapi.json`,
  );
  expect(readdirSync(releasesDir)).toEqual(['9.9.9']);
  expect(readdirSync(join(releasesDir, '9.9.9')).sort()).toEqual(
    [...RELEASE_STACKS.map((s) => `${s.stackName}.template.json`), 'openapi.json'].sort(),
  );
  await expect(keep('9.9.9', { releasesDir, synth: fakeSynth() })).rejects.toThrow(
    'releases/9.9.9 exists already',
  );
});

describe('a failed child, in one line', () => {
  const fail = (script: string) =>
    promisify(execFile)(process.execPath, ['-e', script]).then(
      () => undefined,
      (error: unknown) => error,
    );

  it('is its first stderr line', async () => {
    const error = await fail(
      "process.stderr.write('\\n  Error: bad context value\\n    at x\\n'); process.exit(3)",
    );
    expect(childFailure(error)).toBe('Error: bad context value');
    const lines: string[] = [];
    const failed = new Error(`cdk synth PlantStore failed: ${childFailure(error)}`);
    expect(failureExitCode('release', failed, (l) => lines.push(l))).toBe(1);
    expect(lines).toEqual(['release: cdk synth PlantStore failed: Error: bad context value']);
  });

  it('is the error an app threw, not where Node says it was thrown', async () => {
    const error = await fail("throw new Error('no such stage')");
    expect(childFailure(error)).toBe('Error: no such stage');
  });

  it('is its exit code when it said nothing', async () => {
    expect(childFailure(await fail('process.exit(4)'))).toBe('exit code 4');
  });

  it('is the error when it did not start', () => {
    expect(existsSync('/nonexistent/cdk')).toBe(false);
    expect(childFailure(new Error('spawn /nonexistent/cdk ENOENT'))).toBe(
      'spawn /nonexistent/cdk ENOENT',
    );
  });
});
