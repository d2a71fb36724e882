/**
 * The one parser of the entry points' command lines (`node:util`'s `parseArgs`, strict, with
 * `--help` always known) and the usage mistake it throws; `run.ts` holds the exit rule.
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

/** A parsed command line: each option's value typed as its spec says. */
export interface CommandLine<O extends OptionSpecs = OptionSpecs> {
  readonly values: { [K in keyof O]?: O[K]['type'] extends 'boolean' ? boolean : string };
  readonly positionals: string[];
  readonly help: boolean;
}

/** Parses `argv` strictly; `--help`/`-h` is always known. Throws `UsageError` on a mistake. */
export function parseCommandLine<O extends OptionSpecs>(
  argv: readonly string[],
  options: O,
  allowPositionals = false,
): CommandLine<O> {
  try {
    const { values, positionals } = parseArgs({
      args: [...argv],
      options: { ...(options as OptionSpecs), help: { type: 'boolean', short: 'h' } },
      allowPositionals,
      strict: true,
    });
    return { values: values as CommandLine<O>['values'], positionals, help: values.help === true };
  } catch (error) {
    throw usageErrorOf(error, argv);
  }
}

/**
 * `parseArgs`' own errors are long and name the wrong remedy; say it in one short line. Any other
 * error is returned as it is: its `code` may be anything (a number for a child's exit).
 * `argv`, when given, lets a value that starts with `-` be named in the remedy.
 */
export function usageErrorOf(error: unknown, argv: readonly string[] = []): Error {
  const { code, message = '' } = (error ?? {}) as { code?: unknown; message?: string };
  if (typeof code !== 'string' || !code.startsWith('ERR_PARSE_ARGS')) return error as Error;
  // `'-r, --rate <value>'` names the option by its long name.
  const option = /'(?:-\w, )?(-[^' ,]+)/.exec(message)?.[1];
  const positional = /Unexpected argument '([^']*)'/.exec(message)?.[1];
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return new UsageError(`unknown option ${option}`);
  if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') {
    return new UsageError(`unexpected argument ${positional ?? ''}`.trim());
  }
  if (/argument missing/.test(message)) return new UsageError(`${option} needs a value`);
  if (/ambiguous/.test(message)) return ambiguousValue(option!, message, argv);
  if (/does not take an argument/.test(message)) {
    return new UsageError(`${option} takes no value`);
  }
  return new UsageError(message.split('\n')[0]!);
}

/**
 * `--rate -1`: `parseArgs` takes a value after an option only when it does not start with `-`
 * (it could be the next option); one that does is written `--rate=-1`. Says so, with the value.
 */
function ambiguousValue(option: string, message: string, argv: readonly string[]): UsageError {
  const long = /use '(--[^=']+)=/.exec(message)?.[1] ?? option;
  const at = argv.findIndex((arg, i) => arg === option && argv[i + 1]?.startsWith('-'));
  const value = at >= 0 ? argv[at + 1]! : '-…';
  // What follows is another option (`--url --token x`): the value is missing, not mistyped.
  if (/^--[A-Za-z]/.test(value)) return new UsageError(`${option} needs a value`);
  return new UsageError(
    `${option} needs a value (write ${long}=${value} for a value that starts with -)`,
  );
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
