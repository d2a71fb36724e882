/**
 * The convention of every `bin/` entry: a command is `main(argv, io)`, which reads its command
 * line with `parseCommandLine` (`args.ts`), writes through `io` and returns its exit code
 * (nothing, to keep serving); `runCli` runs it in this process. One exit rule:
 * - `--help`: the usage on stdout, exit code 0;
 * - a usage mistake (`UsageError`): one line on stderr, `<name>: <message> (see <npm command>
 *   -- --help)`, exit code 2;
 * - any other failure: one line on stderr, `<name>: <what went wrong>`, exit code 1; never a
 *   stack trace;
 * - a closed stdout (`npm run token -- list | head -1`) ends the command quietly with 0;
 * - a command that serves (`stoppable`) stops on SIGINT or SIGTERM, and the process exits with
 *   its code as soon as it has stopped. Each `npm run` entry `exec`s its program, so the signal
 *   npm forwards reaches the process that holds the port, not a shell in between.
 * Tests call `main` in-process with their own `io`.
 */
import { UsageError, usageErrorOf } from './args';

/** What a command is given: where its lines go, its environment, and when to stop. */
export interface CliIo {
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
  readonly env: NodeJS.ProcessEnv;
  /** Aborted when the command should wind down: SIGINT or SIGTERM, or a closed stdout. */
  readonly signal?: AbortSignal;
}

/** A command: its exit code, or nothing to keep the process serving. */
export type CliMain = (argv: readonly string[], io: CliIo) => Promise<number | void>;

/**
 * The exit rule for a failure of the command `name` (`token`, `npm start`): the one line it
 * writes to `err`, and the exit code. `describe` says what went wrong in the command's terms.
 */
export function failureExitCode(
  name: string,
  caught: unknown,
  err: (line: string) => void,
  describe: (error: unknown) => string = (error) =>
    error instanceof Error ? error.message : String(error),
): number {
  const error = usageErrorOf(caught);
  if (error instanceof UsageError) {
    const invocation = name.startsWith('npm ') ? name : `npm run ${name}`;
    err(`${name}: ${error.message} (see ${invocation} -- --help)`);
    return 2;
  }
  err(`${name}: ${describe(error)}`);
  return 1;
}

/** Options of `runCli`. */
export interface RunOptions {
  /**
   * SIGINT and SIGTERM abort `io.signal` instead of ending the process (`on`, not `once`:
   * Ctrl-C reaches the process from the terminal and again from npm, which forwards it).
   * A function decides it from the command line (a CLI whose one command serves).
   * @default false: a signal ends the process as Node's default does
   */
  readonly stoppable?: boolean | ((argv: readonly string[]) => boolean);
}

/** Runs `main` as this process's command, by the exit rule above. */
export function runCli(name: string, main: CliMain, options: RunOptions = {}): void {
  const argv = process.argv.slice(2);
  // A CLI of several commands may serve with one (webhook listen) and work to an end with the
  // others: a signal must stop those as Node's default does, not be swallowed.
  const stoppable =
    typeof options.stoppable === 'function' ? options.stoppable(argv) : options.stoppable === true;
  const stop = new AbortController();
  if (stoppable) {
    process.on('SIGINT', () => stop.abort()).on('SIGTERM', () => stop.abort());
  }
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    // The reader has gone (`| head`): what it wanted it has; end quietly.
    if (!stoppable) process.exit(0);
    stop.abort();
  });
  const io: CliIo = {
    out: (line) => void process.stdout.write(`${line}\n`),
    err: (line) => void process.stderr.write(`${line}\n`),
    env: process.env,
    signal: stop.signal,
  };
  main(argv, io).then(
    (code) => {
      if (typeof code !== 'number') return;
      // Stopped: exit now rather than when the event loop has drained. Ctrl-C reaches the
      // process twice (from the terminal and from npm); a copy that arrived during Node's own
      // teardown, its signal handlers gone, would end it by SIGINT instead of this exit code.
      // A closed stdout is no failure, but it hides none either: a command that went on (the
      // webhook CLI's commands but listen) and failed exits with its code.
      if (stop.signal.aborted) process.exit(code);
      process.exitCode = code;
    },
    (caught: unknown) => process.exit(failureExitCode(name, caught, io.err)),
  );
}
