/**
 * Command lines of the entry points (`npm start`, `npm run db`, `npm run token`, `npm run
 * bench`), parsed one way: `--help` prints the usage, a mistake is one line and exit code 2, any
 * other failure one line and exit code 1 — never a stack trace.
 */
import { parseArgs } from 'node:util';

/** A mistake in the command line or the settings: one line on stderr, exit code 2. */
export class UsageError extends Error {}

/** The usage error for a missing or unknown subcommand, naming the ones there are. */
export function commandError(command: string | undefined, commands: readonly string[]): UsageError {
  const list = `${commands.slice(0, -1).join(', ')} or ${commands.at(-1)}`;
  return new UsageError(
    command === undefined ? `a command is required: ${list}` : `unknown command ${command}`,
  );
}

/** The options a command takes, in `node:util` `parseArgs` terms. */
export type OptionSpecs = Record<string, { type: 'boolean' | 'string'; short?: string }>;

/** A parsed command line. */
export interface CommandLine {
  readonly values: Record<string, string | boolean | undefined>;
  readonly positionals: string[];
  readonly help: boolean;
}

/** Parses `argv` strictly; `--help`/`-h` is always known. Throws `UsageError` on a mistake. */
export function parseCommandLine(
  argv: readonly string[],
  options: OptionSpecs,
  allowPositionals = false,
): CommandLine {
  try {
    const { values, positionals } = parseArgs({
      args: [...argv],
      options: { ...options, help: { type: 'boolean', short: 'h' } },
      allowPositionals,
      strict: true,
    });
    return { values, positionals, help: values.help === true };
  } catch (error) {
    throw usageErrorOf(error);
  }
}

/** `parseArgs`' own errors are long and name the wrong remedy; say it in one short line. */
export function usageErrorOf(error: unknown): Error {
  const { code, message = '' } = (error ?? {}) as { code?: string; message?: string };
  if (!code?.startsWith('ERR_PARSE_ARGS')) return error as Error;
  const option = /'(-[^' ]+)/.exec(message)?.[1];
  const positional = /Unexpected argument '([^']*)'/.exec(message)?.[1];
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return new UsageError(`unknown option ${option}`);
  if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') {
    return new UsageError(`unexpected argument ${positional ?? ''}`.trim());
  }
  if (/argument missing/.test(message)) return new UsageError(`${option} needs a value`);
  if (/ambiguous/.test(message)) return new UsageError(`${option} needs a value`);
  if (/does not take an argument/.test(message)) {
    return new UsageError(`${option} takes no value`);
  }
  return new UsageError(message.split('\n')[0]!);
}

/**
 * A value as one field of a tab-separated line that the CLIs print (`token list`, `webhook
 * list`): as typed, unquoted, with a tab, a line break or another control character as a space,
 * so that a line stays one row and a column one field.
 */
export function fieldText(value: string): string {
  return value.replace(/\p{Cc}/gu, ' ');
}

/** An integer option from `min` to `max`, `fallback` when absent. */
export function integerOption(
  value: string | boolean | undefined,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  if (value === undefined) return fallback;
  const raw = String(value);
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new UsageError(`--${name} must be an integer from ${min} to ${max}, not ${raw}`);
  }
  return Number(raw);
}

/**
 * Runs an entry point: `--help` (when `main` returns `usage`) prints on stdout and exits 0; a
 * `UsageError` is `<command>: <message>` and exit code 2; anything else `<command> failed:
 * <message>` and exit code 1. `main` returns the exit code, or nothing to keep running.
 */
export function runCommand(command: string, main: () => Promise<number | void>): void {
  main().then(
    (code) => {
      if (typeof code === 'number') process.exitCode = code;
    },
    (error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      if (error instanceof UsageError) {
        process.stderr.write(`${command}: ${message} (see ${command} -- --help)\n`);
        process.exit(2);
      }
      process.stderr.write(`${command} failed: ${message}\n`);
      process.exit(1);
    },
  );
}

/**
 * How a CLI that returns its exit code reports a failure: a usage mistake is `<program>: <message>
 * (see npm run <program> -- --help)` and 2, anything else `<program>: <describe(error)>` and 1.
 */
export function failureExitCode(
  program: string,
  caught: unknown,
  describe: (error: unknown) => string,
  err: (line: string) => void,
): number {
  const error = usageErrorOf(caught);
  if (error instanceof UsageError) {
    err(`${program}: ${error.message} (see npm run ${program} -- --help)`);
    return 2;
  }
  err(`${program}: ${describe(error)}`);
  return 1;
}
