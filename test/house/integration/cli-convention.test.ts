/**
 * The exit rule every bin/ entry runs by (lib/cli/run.ts), in a real process: a closed stdout
 * ends the command quietly with 0; a usage mistake is one line and 2; another failure one line
 * and 1; SIGTERM reaches a stoppable command, which winds down and exits 0.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { BIN_NODE_FLAGS } from '../../../lib/cli/bin-entry';

const RUN = join(__dirname, '../../../lib/cli/run.ts');

/** Runs `body` (the command's main) under runCli in a node process, its stdout through `| pipe`. */
function run(
  body: string,
  pipe = 'cat',
  signal?: NodeJS.Signals,
  stoppable = String(signal !== undefined),
): Promise<{ code: string; stdout: string; stderr: string }> {
  const script = `
    const { runCli } = require(${JSON.stringify(RUN)});
    const { UsageError } = require(${JSON.stringify(join(RUN, '../args.ts'))});
    runCli('probe', async (argv, io) => { ${body} }, { stoppable: ${stoppable} });`;
  const child = spawn(
    'bash',
    [
      '-c',
      // Node's flags as a bin/ entry has them (lib/cli/bin-entry.ts).
      `"$0" ${BIN_NODE_FLAGS.join(' ')} -e "$1" | ${pipe}; echo "status \${PIPESTATUS[0]}"`,
      process.execPath,
      script,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
    // The command says it is ready on stderr; then the signal goes to it (bash's child).
    if (signal && stderr.includes('ready'))
      spawn('pkill', [`-${signal}`, '-P', String(child.pid), 'node']);
  });
  return new Promise((resolve) =>
    child.on('exit', () => {
      const code = /status (\d+)\n$/.exec(stdout)?.[1] ?? '';
      resolve({ code, stdout: stdout.replace(/status \d+\n$/, ''), stderr });
    }),
  );
}

it('a closed stdout ends it quietly with 0', async () => {
  const result = await run(
    `for (let i = 0; i < 1e6; i++) io.out('line ' + i); return 1;`,
    'head -1',
  );
  expect(result).toEqual({ code: '0', stdout: 'line 0\n', stderr: '' });
}, 300_000);

it('a closed stdout hides no failure of a stoppable command that went on (exit 1)', async () => {
  const result = await run(
    `for (let i = 0; i < 1e5; i++) io.out('line ' + i);
     await new Promise((resolve) => setTimeout(resolve, 100));
     io.err('ready');
     io.err('probe: the redrive was refused');
     return 1;`,
    'head -1',
    'SIGTERM',
  );
  expect(result.code).toBe('1');
  expect(result.stdout).toBe('line 0\n');
}, 300_000);

it('a usage mistake is one line naming --help, and 2', async () => {
  const result = await run(`throw new UsageError('--x needs a value');`);
  expect(result).toEqual({
    code: '2',
    stdout: '',
    stderr: 'probe: --x needs a value (see npm run probe -- --help)\n',
  });
}, 300_000);

it('another failure is one line, no stack, and 1', async () => {
  const result = await run(`throw new Error('the engine is gone');`);
  expect(result).toEqual({ code: '1', stdout: '', stderr: 'probe: the engine is gone\n' });
}, 300_000);

it('SIGTERM reaches a stoppable command, which winds down and exits 0', async () => {
  const result = await run(
    `const serving = setInterval(() => undefined, 1000);
     io.err('ready');
     await new Promise((resolve) => io.signal.addEventListener('abort', resolve));
     clearInterval(serving);
     io.out('stopped');
     return 0;`,
    'cat',
    'SIGTERM',
  );
  expect(result).toEqual({ code: '0', stdout: 'stopped\n', stderr: 'ready\n' });
}, 300_000);

it("SIGTERM ends a command its CLI does not make stoppable, as Node's default does (143)", async () => {
  const result = await run(
    `const working = setInterval(() => undefined, 1000);
     io.err('ready');
     await new Promise((resolve) => io.signal.addEventListener('abort', resolve));
     clearInterval(working);
     io.out('swallowed');
     return 0;`,
    'cat',
    'SIGTERM',
    "(argv) => argv[0] === 'listen'",
  );
  expect(result).toEqual({ code: '143', stdout: '', stderr: 'ready\n' });
}, 300_000);
