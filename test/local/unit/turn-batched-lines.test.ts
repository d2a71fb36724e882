/**
 * npm start's log writer (lib/cli/lines.ts): a turn's lines in one write, in order, and nothing
 * lost when the process exits before the next turn.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { turnBatchedLines } from '../../../lib/cli/lines';

it("writes one turn's lines in one write, in order, and the next turn's in another", async () => {
  const writes: string[] = [];
  const log = turnBatchedLines({ write: (text: string) => writes.push(text) } as never);
  log('a');
  log('b');
  expect(writes).toEqual([]);
  await new Promise((resolve) => setImmediate(resolve));
  log('c');
  await new Promise((resolve) => setImmediate(resolve));
  expect(writes).toEqual(['a\nb\n', 'c\n']);
});

it.each([
  ['process.exit', 'process.exit(3)', 3],
  ['an uncaught exception', "throw new Error('boom')", 1],
])('writes the waiting lines when %s ends the process in the same turn', async (_, end, code) => {
  const lines = join(__dirname, '../../../lib/cli/lines.ts');
  const script = `const log = require(${JSON.stringify(lines)}).turnBatchedLines(process.stdout); log('first'); log('last'); ${end};`;
  const failed = await promisify(execFile)(process.execPath, [
    '--require',
    'tsx/cjs',
    '-e',
    script,
  ]).then(
    () => undefined,
    (error: { code: number; stdout: string }) => error,
  );
  expect(failed).toMatchObject({ code, stdout: 'first\nlast\n' });
});
