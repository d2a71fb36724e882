/**
 * Runs one of the project's commands: `runBin` as a user would (a child process: tsx compiles it
 * at start, a second or more on a busy machine), `runCommand` in this process through the same
 * `main(argv, io)` its bin/ entry hands to runCli, by the same exit rule (lib/cli/run.ts). The
 * process-level parts of that rule (closed stdout, signals, exit codes of a real process) are
 * tested once, in test/house; a suite that checks what a command says and does uses runCommand.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { binArgs, binNode } from '../../lib/cli/bin-entry';
import { failureExitCode, type CliIo, type CliMain } from '../../lib/cli/run';
import { runSmokeCli } from '../../lib/operator/smoke';
import { runTokenCli } from '../../lib/operator/token-cli';
import { runVerifyCli } from '../../lib/operator/verify/cli';
import { runWebhookCli } from '../../lib/operator/webhook/cli';
import { runStateCli } from '../../lib/operator/state/cli';
import { loadCommand } from '../../lib/lab/load';

const ROOT = join(__dirname, '../..');

/** What a finished command left. */
export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** The environment of a command: this process's, with `env` over it (`undefined` unsets one). */
function environment(env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries({ ...process.env, ...env }).filter(([, value]) => value !== undefined),
  );
}

/** Runs `bin/<script>.ts` with `args` and extra environment variables (`undefined` unsets one). */
export function runBin(
  script: string,
  args: string[],
  env: Record<string, string | undefined> = {},
): Promise<CliResult> {
  return new Promise((resolve) => {
    // As the npm scripts run them (lib/cli/bin-entry.ts).
    execFile(
      binNode(script),
      binArgs(script, args),
      { cwd: ROOT, env: environment(env), timeout: 150_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/**
 * The commands runCommand knows: the name runCli gives it in its bin/ entry (the exit rule's
 * lines start with it) and the `main` that entry hands to runCli.
 */
const COMMANDS = {
  token: ['token', runTokenCli],
  webhook: ['webhook', runWebhookCli],
  state: ['state', runStateCli],
  smoke: ['smoke', runSmokeCli],
  load: ['npm run load', loadCommand],
  verify: ['verify', runVerifyCli],
} satisfies Record<string, [string, CliMain]>;

/**
 * Runs `npm run <command> -- <args>` in this process, with this process's environment and `env`
 * over it (`undefined` unsets one); a command that serves is stopped by `signal`.
 */
export async function runCommand(
  command: keyof typeof COMMANDS,
  args: string[],
  env: Record<string, string | undefined> = {},
  signal?: AbortSignal,
): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    out: (line) => void (stdout += `${line}\n`),
    err: (line) => void (stderr += `${line}\n`),
    env: environment(env),
    signal,
  };
  const [name, main]: [string, CliMain] = COMMANDS[command];
  let code: number;
  try {
    code = (await main(args, io)) ?? 0;
  } catch (caught) {
    code = failureExitCode(name, caught, io.err);
  }
  return { code, stdout, stderr };
}

/** What `runBesideImpostor` saw. */
export interface ImpostorRun {
  readonly result: CliResult;
  /** Every request that reached the listener on PORT (`method url authorization`). */
  readonly heard: string[];
  /** The data directory the command was given (removed by then). */
  readonly dataDir: string;
}

/**
 * `command` given no `--url` and no token, with npm start's dev token `devToken` in a data
 * directory of its own (`prepare` may add to it, given the listener's port) and PORT on a
 * listener that records whatever reaches it: any local user can listen on the port npm start
 * left, or never took.
 */
export async function runBesideImpostor(
  command: keyof typeof COMMANDS,
  devToken: string,
  prepare: (dataDir: string, port: number) => void = () => undefined,
): Promise<ImpostorRun> {
  const dataDir = mkdtempSync(join(tmpdir(), `plant-store-${command}-token-`));
  const heard: string[] = [];
  const impostor = createServer((request, response) => {
    heard.push(`${request.method} ${request.url} ${request.headers.authorization ?? ''}`);
    response.end();
  });
  await new Promise<void>((resolve) => impostor.listen(0, '127.0.0.1', resolve));
  const port = (impostor.address() as AddressInfo).port;
  try {
    writeFileSync(join(dataDir, 'dev-token'), `${devToken}\n`, { mode: 0o600 });
    prepare(dataDir, port);
    const result = await runCommand(command, [], {
      PORT: String(port),
      PLANT_STORE_DATA_DIR: dataDir,
      PLANT_STORE_TOKEN: '',
    });
    return { result, heard, dataDir };
  } finally {
    await new Promise((resolve) => impostor.close(resolve));
    rmSync(dataDir, { recursive: true, force: true });
  }
}
