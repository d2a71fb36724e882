/**
 * `npm run release -- keep <version>`: synthesizes each kept stack with the CDK CLI and writes its
 * template, with `openapi.json`, under `releases/<version>/`. The folder appears whole or not at
 * all: a failure on any stack leaves nothing, so the same command can be run again.
 */
import { execFile } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  renameSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { UsageError } from '../cli/args';
import { PROJECT_ROOT } from '../definitions/bundling';
import { RELEASES_DIR, RELEASE_STACKS } from './releases';

/** Synthesizes `stackName` with `context` into the cloud assembly folder `outDir`. */
export type Synth = (
  stackName: string,
  context: Readonly<Record<string, string>>,
  outDir: string,
) => Promise<void>;

/** What `keep` works with; the tests give their own. */
export interface KeepOptions {
  /** @default RELEASES_DIR: the project's releases/ */
  readonly releasesDir?: string;
  /** @default `npx cdk synth` in the project root */
  readonly synth?: Synth;
}

/** `cdk synth` as the release procedure runs it, failing with one line that says why. */
export const cdkSynth: Synth = async (stackName, context, outDir) => {
  const args = Object.entries(context).flatMap(([key, value]) => ['-c', `${key}=${value}`]);
  try {
    await promisify(execFile)(
      'npx',
      ['cdk', 'synth', '--no-notices', '--quiet', '-o', outDir, ...args, stackName],
      { cwd: PROJECT_ROOT, maxBuffer: 64 * 1024 * 1024 },
    );
  } catch (error) {
    throw new Error(`cdk synth ${stackName} failed: ${childFailure(error)}`, { cause: error });
  }
};

/**
 * Why a child process failed, in one line: the first error line it wrote to stderr (else its
 * first line), else how it ended (its exit code or signal), else the error's own message (it did
 * not start).
 */
export function childFailure(error: unknown): string {
  const { stderr, code, signal, message } = (error ?? {}) as {
    stderr?: unknown;
    code?: unknown;
    signal?: unknown;
    message?: unknown;
  };
  const lines = String(stderr ?? '')
    .split('\n')
    .map((text) => text.trim())
    .filter((text) => text !== '');
  // An error thrown by the app: Node writes where it was thrown first, then the error's line.
  const line = lines.find((text) => /^\w*Error\b/.test(text)) ?? lines[0];
  if (line) return line;
  if (typeof code === 'number') return `exit code ${code}`;
  if (typeof signal === 'string') return `ended by ${signal}`;
  return String(message ?? error);
}

/** Keeps release `version`; answers the line that says what was kept. */
export async function keep(version: string, options: KeepOptions = {}): Promise<string> {
  const { releasesDir = RELEASES_DIR, synth = cdkSynth } = options;
  const target = join(releasesDir, version);
  if (existsSync(target)) throw new UsageError(`releases/${version} exists already`);
  mkdirSync(releasesDir, { recursive: true });
  // Beside the target, so that the last step is a rename on one file system; a dot folder is
  // no version, so a reader of releases/ never takes it for one.
  const staging = mkdtempSync(join(releasesDir, `.${version}-`));
  // mkdtemp makes it 0700: a kept release is as readable as the rest of the repository.
  chmodSync(staging, 0o755);
  const out = mkdtempSync(join(tmpdir(), 'plant-store-release-'));
  try {
    for (const { stackName, context } of RELEASE_STACKS) {
      const dir = join(out, stackName);
      await synth(stackName, context, dir);
      const file = `${stackName}.template.json`;
      copyFileSync(join(dir, file), join(staging, file));
    }
    copyFileSync(join(PROJECT_ROOT, 'openapi.json'), join(staging, 'openapi.json'));
    renameSync(staging, target);
    return `releases/${version}: ${RELEASE_STACKS.map((s) => s.stackName).join(', ')} and openapi.json`;
  } finally {
    rmSync(staging, { recursive: true, force: true });
    rmSync(out, { recursive: true, force: true });
  }
}
