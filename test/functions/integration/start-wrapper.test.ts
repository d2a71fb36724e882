/**
 * The start wrapper every function ships (`lambda/aws/start-node.sh`), run by a real shell with
 * Lambda's Node and the command line Lambda's runtime uses: it passes everything on but
 * `--expose-gc`, and with that flag gone Node keeps the code cache of its own modules, which the
 * flag costs every cold start (`npm run bench -- --phases cold`); it adds the flags
 * `START_WRAPPER.nodeFlags` names (a young generation a cold start fits in), before the rest.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../../lib/definitions/bundling';
import { FUNCTIONS } from '../../../lib/definitions/functions';
import {
  lambdaNode,
  lambdaRuntimeFlags,
  START_WRAPPER,
} from '../../../lib/definitions/lambda-node';

const wrapper = join(PROJECT_ROOT, START_WRAPPER.source);
const node = lambdaNode().path;
const command = lambdaRuntimeFlags(256);
const env = { PATH: process.env.PATH ?? '' };

function start(viaWrapper: boolean, args: string[], extraEnv: Record<string, string> = {}) {
  const [file, argv] = viaWrapper
    ? [wrapper, [node, ...command, ...args]]
    : [node, [...command, ...args]];
  return spawnSync(file, argv, { env: { ...env, ...extraEnv }, encoding: 'utf8' });
}

const REPORT =
  'console.log(JSON.stringify({ pid: process.pid, execArgv: process.execArgv, argv: process.argv.slice(1), gc: typeof gc })); process.exit(7)';

const added = [...START_WRAPPER.nodeFlags];

it('starts Node with its own flags, then every argument but --expose-gc, in order, as the same process, with its exit status', () => {
  const result = start(true, ['-e', REPORT, 'an argument with spaces', '', '--another=one']);
  expect(result.status).toBe(7);
  expect(JSON.parse(result.stdout)).toEqual({
    // exec: Node is the process Lambda started, not a child of the shell.
    pid: result.pid,
    execArgv: [...added, ...command.filter((flag) => flag !== '--expose-gc'), '-e', REPORT],
    argv: ['an argument with spaces', '', '--another=one'],
    gc: 'undefined',
  });
  expect(command).toContain('--expose-gc');
});

it.each([
  ['in the middle', ['--max-http-header-size', '81920', '--expose-gc', '--stack-size=900']],
  ['absent', ['--max-http-header-size', '81920', '--stack-size=900']],
  ['twice, and last', ['--expose-gc', '--stack-size=900', '--expose-gc']],
])('drops the flag wherever it is (%s) and keeps the rest', (_where, flags) => {
  const result = spawnSync(wrapper, [node, ...flags, '-e', REPORT, 'x'], { env, encoding: 'utf8' });
  expect(result.status).toBe(7);
  expect(JSON.parse(result.stdout)).toMatchObject({
    execArgv: [...added, ...flags.filter((flag) => flag !== '--expose-gc'), '-e', REPORT],
    argv: ['x'],
    gc: 'undefined',
  });
});

it("keeps the code cache of Node's own modules, which Lambda's command line makes Node reject", () => {
  const load = ['-e', "require('node:tls'); require('node:https')"];
  const debug = { NODE_DEBUG_NATIVE: 'CODE_CACHE' };
  const rejected = (output: string) =>
    output.split('\n').filter((line) => / is rejected$/.test(line));
  const asLambda = start(false, load, debug);
  const wrapped = start(true, load, debug);
  expect(asLambda.status).toBe(0);
  expect(wrapped.status).toBe(0);
  // Node says what it compiles with its cache and what V8 refused (another flag hash).
  expect(rejected(asLambda.stderr).length).toBeGreaterThan(10);
  expect(wrapped.stderr).toMatch(/Compiling tls with code cache/);
  expect(rejected(wrapped.stderr)).toEqual([]);
});

const NEW_SPACE_MB =
  "const v8 = require('node:v8'); console.log(v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space').space_size / 1048576)";

it('starts the young generation at 8 MB (1 MB without), at every memory a function here has', () => {
  expect(added).toEqual(['--min-semi-space-size=8']);
  expect(start(false, ['-e', NEW_SPACE_MB]).stdout.trim()).toBe('1'); // V8's own start
  expect(start(true, ['-e', NEW_SPACE_MB]).stdout.trim()).toBe('8');
  // V8 caps the start at Lambda's --max-semi-space-size (a twentieth of the memory, rounded up
  // to a power of two): measured at each memory of the registry, not computed.
  for (const memory of new Set(Object.values(FUNCTIONS).map((fn) => fn.memorySize))) {
    const result = spawnSync(wrapper, [node, ...lambdaRuntimeFlags(memory), '-e', NEW_SPACE_MB], {
      env,
      encoding: 'utf8',
    });
    expect({ memory, newSpace: result.stdout.trim() }).toEqual({ memory, newSpace: '8' });
  }
});

// aws-lambda-ric 4.x (Lambda's Node runtime client, Node 22 and later), in multi-concurrent mode
// (Lambda Managed Instances): it starts worker threads with `process.execArgv` less these
// (`WorkerManager.getFilteredExecArgv`), and Node refuses any other V8 flag there.
const RUNTIME_CLIENT_WORKER_FILTER = [
  '--expose-gc',
  '--max-semi-space-size',
  '--max-old-space-size',
];
const START_WORKER_AS_THE_CLIENT = [
  '-e',
  [
    "const { Worker } = require('node:worker_threads');",
    `const filtered = process.execArgv.filter((arg) => !${JSON.stringify(RUNTIME_CLIENT_WORKER_FILTER)}.some((flag) => arg.startsWith(flag)));`,
    "const worker = new Worker('process.exit(0)', { eval: true, execArgv: filtered });",
    "worker.on('exit', (code) => process.exit(code));",
  ].join('\n'),
];

it("adds nothing in Lambda's multi-concurrent mode, where the runtime client's worker threads would refuse the flag", () => {
  const multi = { AWS_LAMBDA_MAX_CONCURRENCY: '2' };
  const report = start(true, ['-e', REPORT], multi);
  expect(JSON.parse(report.stdout).execArgv).toEqual([
    ...command.filter((flag) => flag !== '--expose-gc'),
    '-e',
    REPORT,
  ]);
  // The client's own way of starting a worker: through the wrapper it starts in that mode; with
  // the flag it would not (what the wrapper avoids).
  expect(start(true, START_WORKER_AS_THE_CLIENT, multi).status).toBe(0);
  const withTheFlag = spawnSync(node, [...added, ...command, ...START_WORKER_AS_THE_CLIENT], {
    env,
    encoding: 'utf8',
  });
  expect(withTheFlag.status).not.toBe(0);
  expect(withTheFlag.stderr).toMatch(/ERR_WORKER_INVALID_EXEC_ARGV/);
});
