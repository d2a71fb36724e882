/**
 * How a bin/ entry is run, defined once: package.json's scripts and cdk.json's app say it in
 * words (`npm run generate -- --check` fails when one of them says otherwise), and the tests that
 * start a command as a user would take its arguments from here.
 *
 * `--require tsx/cjs` compiles the TypeScript as CommonJS (package.json has no `"type"`) in the
 * process's own thread, with source maps, so a stack trace names the .ts line. `--import tsx`
 * would add tsx's ESM hooks, which run in a loader thread of their own: about half a second more
 * CPU for every command started. Without them an `import()` of a .ts file is Node's alone (on
 * Node 20 it fails; newer Node strips types but resolves no extensionless path); the one entry
 * that needs them, bin/bench.ts, registers them.
 */
import { join } from 'node:path';
import { PROJECT_ROOT } from '../definitions/bundling';
import { lambdaNode } from '../definitions/lambda-node';

/** Node's flags before the entry's file. */
export const BIN_NODE_FLAGS: readonly string[] = ['--require', 'tsx/cjs'];

/**
 * The Node `npm start` runs on, as its script says it: the one lib/definitions/lambda-node-path.cjs
 * prints, Lambda's where its package is installed. The gateway, the engine and the pools then
 * run on the V8 the functions run on, which does their work in less CPU than Node 20's (the bench's
 * `cpu` and `offline` phases measure the runtime there). The shell `exec`s it in its own place, so
 * npm still signals the runtime itself. Every other entry runs on the machine's Node.
 */
export const NPM_START_NODE = '"$(node lib/definitions/lambda-node-path.cjs)"';

/** The entry that runs on `NPM_START_NODE`: `npm start`'s. */
const NPM_START_ENTRY = 'local';

/** The command, run from the project root, that runs `bin/<entry>.ts` (`entry`: `token`). */
export function binCommand(entry: string): string {
  const node = entry === NPM_START_ENTRY ? NPM_START_NODE : 'node';
  return [node, ...BIN_NODE_FLAGS, `bin/${entry}.ts`].join(' ');
}

/** package.json's script for `bin/<entry>.ts`: `exec`, so that npm signals the program itself. */
export function binScript(entry: string): string {
  return `exec ${binCommand(entry)}`;
}

/** The Node that runs `bin/<entry>.ts` as its script does: `npm start`'s, or this process's. */
export function binNode(entry: string): string {
  return entry === NPM_START_ENTRY ? lambdaNode().path : process.execPath;
}

/** `node`'s arguments that run `bin/<entry>.ts` with `args`, from any working directory. */
export function binArgs(entry: string, args: readonly string[] = []): string[] {
  return [...BIN_NODE_FLAGS, join(PROJECT_ROOT, 'bin', `${entry}.ts`), ...args];
}
