/**
 * `npm start` as a user runs it, for e2e tests: a child process whose output is kept, resolved
 * once the banner is printed, stopped with SIGTERM.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '../..');

/** A running `npm start`. */
export interface NpmStart {
  readonly child: ChildProcess;
  /** Everything printed so far (stdout and stderr). */
  output(): string;
  /** The URL the banner printed. */
  readonly url: string;
  /** Stops it (SIGTERM) and resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** Starts `npm start` with `env` added and resolves once its banner is printed. */
export async function npmStart(
  env: Record<string, string>,
  args: readonly string[] = [],
): Promise<NpmStart> {
  const child = spawn('npm', ['start', '--silent', '--', ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  await new Promise<void>((resolve, reject) => {
    const check = setInterval(() => {
      if (output.includes('dev token:') && output.includes('try:')) {
        clearInterval(check);
        resolve();
      }
    }, 20);
    child.once('exit', (code) => {
      clearInterval(check);
      reject(new Error(`npm start exited ${code}: ${output}`));
    });
  });
  const url = /listening on (http:\/\/\S+)/.exec(output)![1]!;
  return {
    child,
    output: () => output,
    url,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve(child.exitCode);
        child.once('exit', (code) => resolve(code));
        child.kill('SIGTERM');
      }),
  };
}
