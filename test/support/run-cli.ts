/** Runs one of the project's commands as a user would: a child process, exit code and output. */
import { execFile } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '../..');
const TSX = join(ROOT, 'node_modules/.bin/tsx');

/** What a finished command left. */
export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `bin/<script>.ts` with `args` and extra environment variables (`undefined` unsets one). */
export function runBin(
  script: string,
  args: string[],
  env: Record<string, string | undefined> = {},
): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      TSX,
      [join(ROOT, 'bin', `${script}.ts`), ...args],
      {
        cwd: ROOT,
        env: Object.fromEntries(
          Object.entries({ ...process.env, ...env }).filter(([, value]) => value !== undefined),
        ),
        timeout: 60_000,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}
