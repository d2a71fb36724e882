/**
 * The one command-line parser (lib/cli/args.ts): an error that is not the parser's passes through
 * whatever its `code` is (a child process's exit code is a number).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { usageErrorOf } from '../../../lib/cli/args';
import { failureExitCode } from '../../../lib/cli/run';

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
