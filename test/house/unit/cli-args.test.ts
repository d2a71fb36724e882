/**
 * The one command-line parser (lib/cli/args.ts): a value that starts with `-` is refused with the
 * way to pass it, and that way works; an error that is not the parser's passes through whatever
 * its `code` is (a child process's exit code is a number).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { parseCommandLine, UsageError, usageErrorOf } from '../../../lib/cli/args';
import { failureExitCode } from '../../../lib/cli/run';

const OPTIONS = { rate: { type: 'string', short: 'r' }, yes: { type: 'boolean' } } as const;
const parse = (...argv: string[]) => parseCommandLine(argv, OPTIONS, true);

describe('a value that starts with -', () => {
  it.each([
    [['--rate', '-1'], '--rate needs a value (write --rate=-1 for a value that starts with -)'],
    [['-r', '-1'], '-r needs a value (write --rate=-1 for a value that starts with -)'],
    [
      ['--yes', '--rate', '-x', 'a'],
      '--rate needs a value (write --rate=-x for a value that starts with -)',
    ],
  ])('%j says how to pass it', (argv, message) => {
    expect(() => parse(...argv)).toThrow(new UsageError(message));
  });

  it('is taken as the remedy writes it', () => {
    expect(parse('--rate=-1').values.rate).toBe('-1');
    expect(parse('-r-1').values.rate).toBe('-1');
  });

  it('keeps the other rules', () => {
    expect(() => parse('--rate')).toThrow(new UsageError('--rate needs a value'));
    // Followed by another option: the value is missing, not mistyped.
    expect(() => parse('--rate', '--yes')).toThrow(new UsageError('--rate needs a value'));
    expect(() => parse('-r')).toThrow(new UsageError('--rate needs a value'));
    expect(() => parse('--yes=1')).toThrow(new UsageError('--yes takes no value'));
    expect(() => parse('--nope')).toThrow(new UsageError('unknown option --nope'));
  });
});

describe('an error that is not the parser’s', () => {
  it('passes through when its code is a number: a child’s exit', async () => {
    expect.assertions(2);
    const failed = await promisify(execFile)(process.execPath, ['-e', 'process.exit(3)']).catch(
      (error: unknown) => error as Error & { code: unknown },
    );
    expect(failed).toMatchObject({ code: 3 });
    expect(usageErrorOf(failed)).toBe(failed);
  });

  it('is a failure (exit 1), not a crash of the exit rule', () => {
    const lines: string[] = [];
    const error = Object.assign(new Error('cdk synth failed'), { code: 1 });
    expect(failureExitCode('release', error, (l) => lines.push(l))).toBe(1);
    expect(lines).toEqual(['release: cdk synth failed']);
  });
});
