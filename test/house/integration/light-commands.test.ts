/**
 * The commands that talk to a running `npm start` (`npm run token`, `webhook`, `state`, `smoke`,
 * the console) reach it through lib/npm-start/find.ts, which must not load the emulator: the
 * engine, IAM and its simulator, the queues. Loading it was a third of such a command's start.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { BIN_NODE_FLAGS } from '../../../lib/cli/bin-entry';

const ROOT = join(__dirname, '../../..');

/**
 * Every module a fresh Node process, with a bin/ entry's flags (lib/cli/bin-entry.ts: tsx's
 * CommonJS hook, so that `require.cache` holds each one), has loaded once it has required `file`.
 */
async function modulesLoadedBy(file: string): Promise<string[]> {
  const script = `require(${JSON.stringify(join(ROOT, file))});
    process.stdout.write(JSON.stringify(Object.keys(require.cache)));`;
  const { stdout } = await promisify(execFile)(process.execPath, [...BIN_NODE_FLAGS, '-e', script]);
  return (JSON.parse(stdout) as string[]).map((path) => path.slice(ROOT.length + 1));
}

it('lib/npm-start/find.ts loads no part of the emulator', async () => {
  const loaded = await modulesLoadedBy('lib/npm-start/find.ts');
  expect(loaded).toContain('lib/local/names.ts');
  const emulator =
    /^lib\/local\/(dynamodb|iam\/(account|evaluator|gate)|sqs|kms|lambda|gateway)\b|^lib\/local\/(webhooks|runtime)\.ts$|^node_modules\/(dynalite|@cloud-copilot)\//;
  expect(loaded.filter((path) => emulator.test(path))).toEqual([]);
});
