/**
 * The one way code starts `npm start` as a process, for the e2e suites and the bench: in this
 * project (or a copy of it), with variables added to this process's environment, stopped with
 * SIGTERM as Ctrl-C's neighbour would.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { PROJECT_ROOT } from '../definitions/bundling';
import { freePort } from '../local/process/free-port';

/** How to start it. */
export interface NpmStartOptions {
  /** Added to this process's environment. */
  readonly env?: Readonly<Record<string, string>>;
  /** `npm start -- <args>`. */
  readonly args?: readonly string[];
  /** The project to start. @default this one */
  readonly root?: string;
  /**
   * Started to be measured: without NODE_EXTRA_CA_CERTS (Lambda sets none; it adds ~35 ms to
   * each Node start on some machines), its output not kept (a line per request would weigh on
   * what is measured), in its own process group, stopped as a whole. @default false
   */
  readonly measured?: boolean;
}

/** A running `npm start`. */
export interface NpmStart {
  readonly child: ChildProcess;
  /** Everything it printed so far, stdout and stderr (nothing when measured). */
  output(): string;
  /** Stops it (SIGTERM) and resolves with npm's exit code once it has exited. */
  stop(): Promise<number | null>;
}

/** A running `npm start` and the URL of its API. */
export interface ListeningNpmStart extends NpmStart {
  readonly url: string;
}

/** This process's environment without the machine's NODE_EXTRA_CA_CERTS (Lambda sets none). */
export function withoutExtraCaCerts(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const copy = { ...env };
  delete copy.NODE_EXTRA_CA_CERTS;
  return copy;
}

/** Spawns `npm start -- <args>`; does not wait for it. */
export function spawnNpmStart(options: NpmStartOptions = {}): NpmStart {
  const { env = {}, args = [], root = PROJECT_ROOT, measured = false } = options;
  const child = spawn('npm', ['start', '--silent', ...(args.length ? ['--', ...args] : [])], {
    cwd: root,
    env: { ...(measured ? withoutExtraCaCerts(process.env) : process.env), ...env },
    stdio: measured ? 'ignore' : ['ignore', 'pipe', 'pipe'],
    detached: measured,
  });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return {
    child,
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        try {
          if (measured) process.kill(-child.pid!, 'SIGTERM');
          else child.kill('SIGTERM');
        } catch {
          // already gone
        }
      }
      return exited;
    },
  };
}

/** Starts `npm start` and resolves once its banner is printed, with the URL the banner gives. */
export async function startNpmStart(
  options: Omit<NpmStartOptions, 'measured'> = {},
): Promise<ListeningNpmStart> {
  const started = spawnNpmStart(options);
  const { child, output } = started;
  await new Promise<void>((resolve, reject) => {
    const check = setInterval(() => {
      if (output().includes('dev token:') && output().includes('try:')) {
        clearInterval(check);
        resolve();
      }
    }, 20);
    child.once('exit', (code) => {
      clearInterval(check);
      reject(new Error(`npm start exited ${code}: ${output()}`));
    });
  });
  const url = /listening on (http:\/\/\S+)/.exec(output())![1]!;
  return { ...started, url };
}

/**
 * Spawns `npm start -- <args>` to be measured, on free ports with its data in `dataDir`; does
 * not wait for it (`untilRecorded` in `find.ts` does).
 */
export async function spawnOnFreePorts(
  dataDir: string,
  args: readonly string[] = [],
  root?: string,
): Promise<ListeningNpmStart> {
  const [port, dbPort] = [await freePort(), await freePort()];
  const started = spawnNpmStart({
    env: {
      PORT: String(port),
      PLANT_STORE_DB_PORT: String(dbPort),
      PLANT_STORE_DATA_DIR: dataDir,
    },
    args,
    root,
    measured: true,
  });
  return { ...started, url: `http://127.0.0.1:${port}` };
}
