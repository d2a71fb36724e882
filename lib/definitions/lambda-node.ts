/**
 * The Node.js that Lambda runs, on this machine: the `node-<platform>-<arch>` package of the
 * deployed major (an optional dependency, installed only where it fits), else the machine's
 * own Node with a notice. The local runtime's sandboxes and `npm run bench` both use it, and
 * `npm start` runs on it (its script asks lambda-node-path.cjs: `NPM_START_NODE`).
 */
import { NODE_MAJOR } from './bundling';
import { installedLambdaNode, nodePackageName } from './lambda-node-path.cjs';

/** A Node binary and what it is. */
export interface LambdaNode {
  /** Absolute path of the `node` executable. */
  readonly path: string;
  /** Its major version. */
  readonly major: number;
  /** Set when the binary is not Lambda's major: one line saying so and why. */
  readonly notice?: string;
}

export { nodePackageName };

/** Lambda's Node if its package is installed for this platform, else this process's Node. */
export function lambdaNode(): LambdaNode {
  const path = installedLambdaNode();
  if (path) return { path, major: NODE_MAJOR };
  const major = Number(process.versions.node.split('.')[0]);
  return {
    path: process.execPath,
    major,
    notice: `${nodePackageName()}@${NODE_MAJOR} is not installed for this platform; functions run on this machine's Node ${process.version}`,
  };
}

/**
 * The heap limits Lambda's Node runtime starts a function with for its memory setting in MB (a
 * tenth for the young generation, split in two semi-spaces; the rest for the old one), so that a
 * local sandbox collects garbage and runs out of memory where a deployed one would.
 */
export function lambdaHeapFlags(memoryMB: number): string[] {
  const newSpace = Math.floor(memoryMB / 10);
  return [
    `--max-semi-space-size=${Math.floor(newSpace / 2)}`,
    `--max-old-space-size=${memoryMB - newSpace}`,
  ];
}

/**
 * The command line Lambda's Node.js runtime starts a function's Node with, before its runtime
 * client (`bootstrap`: `node --expose-gc --max-http-header-size 81920 <heap limits>
 * /var/runtime/index.mjs`); the client filters the same `--expose-gc` and heap flags out of its
 * worker threads' arguments. `--expose-gc` costs every cold start the code cache of Node's own
 * modules: each function starts through `START_WRAPPER`, which drops it.
 */
export function lambdaRuntimeFlags(memoryMB: number): string[] {
  return ['--expose-gc', '--max-http-header-size', '81920', ...lambdaHeapFlags(memoryMB)];
}

const START_WRAPPER_FILE = 'start-node.sh';

/**
 * Every function's start wrapper: a POSIX shell script shipped beside its bundle, which Lambda
 * runs (`AWS_LAMBDA_EXEC_WRAPPER`) with the runtime's command line, and which runs it without
 * `--expose-gc` and with `nodeFlags` first (the script says why). Locally, sandboxes start
 * without `--expose-gc` already, and with `nodeFlags`.
 */
export const START_WRAPPER = {
  /** The script in this repository (executable, LF line endings by `.gitattributes`). */
  source: `lambda/aws/${START_WRAPPER_FILE}`,
  /** Its name beside each bundle. */
  file: START_WRAPPER_FILE,
  /** Where Lambda finds it: the function's code is unpacked in `/var/task`. */
  path: `/var/task/${START_WRAPPER_FILE}`,
  /**
   * What it adds before Lambda's own flags: a young generation of 8 MB from the start, so that a
   * cold start (the import and the first call) runs no scavenge; Node refuses the flag in
   * `NODE_OPTIONS`. Not in Lambda's multi-concurrent mode, whose worker threads would refuse it
   * (the script says why). A test runs the script and checks that it adds exactly these.
   */
  nodeFlags: ['--min-semi-space-size=8'],
} as const;

/**
 * Whether a stack synthesized on `platform` can ship the start wrapper: the asset zip carries each
 * file's mode, and Lambda runs the wrapper only if it is executable, which a file on Windows is
 * not. Synthesized there, the functions start without it (Lambda's own command, `--expose-gc`
 * and all), with a warning.
 */
export function canShipStartWrapper(platform: NodeJS.Platform = process.platform): boolean {
  return platform !== 'win32';
}

/**
 * The built-ins Lambda's Node.js runtime has loaded before it imports a function's handler: its
 * runtime interface client (`aws-lambda-ric` 4.0.2's `index.mjs`, for Node 22 and later; 3.3.0
 * loads the same `http` and `net`) requires these at its start and makes one keep-alive
 * `http.Agent` for the Runtime API. A handler's cold import on Lambda pays only for what it adds
 * to them: `npm run bench -- --phases cold` measures it both on a bare process and after them.
 */
export const LAMBDA_RUNTIME_BUILTINS: readonly string[] = [
  'node:module',
  'node:path',
  'node:fs',
  'node:net',
  'node:http',
  'node:os',
  'node:util',
  'node:worker_threads',
];
