/**
 * `@plant-store/client` as another project gets it: the tarball `npm pack` makes, and npm run in
 * a project outside the workspace, offline (the package must need nothing from the registry).
 */
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = join(__dirname, '../..');

/**
 * Packs the client into `destination` and answers the tarball's path. The package is the dist/
 * that `npm test`'s pretest built: `npm pack` runs prepack, which rebuilds it, so the pack skips
 * scripts (other suites read dist/ meanwhile).
 */
export async function packClient(destination: string): Promise<string> {
  const { stdout } = await run(
    'npm',
    ['pack', './client', '--ignore-scripts', '--json', '--pack-destination', destination],
    { cwd: ROOT },
  );
  return join(destination, (JSON.parse(stdout) as { filename: string }[])[0]!.filename);
}

/**
 * TypeScript's compiler, for type-checking the installed package as a project would: TypeScript
 * 7's native `tsc` (the root package.json's @typescript/native, docs/contributing.md).
 */
export const TSC = join(dirname(require.resolve('@typescript/native/package.json')), 'bin/tsc');

/** npm in `cwd`, offline, without audit and funding notes: its stdout and stderr. */
export const npmOffline = (cwd: string, ...args: string[]) =>
  run('npm', [...args, '--offline', '--no-audit', '--no-fund'], { cwd, env: process.env });
