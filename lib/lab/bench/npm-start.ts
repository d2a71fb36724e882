/** `npm start` as the bench runs it: its own process group, free ports, no NODE_EXTRA_CA_CERTS. */
import { spawn, type ChildProcess } from 'node:child_process';
import { PROJECT_ROOT } from '../../definitions/bundling';
import { freePort } from '../../local/process/free-port';

/** This process's environment without the machine's NODE_EXTRA_CA_CERTS (Lambda sets none). */
export function withoutExtraCaCerts(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const copy = { ...env };
  delete copy.NODE_EXTRA_CA_CERTS;
  return copy;
}

/** A running `npm start`. */
export interface NpmStart {
  readonly child: ChildProcess;
  readonly url: string;
  /** Stops the whole process group and waits for npm to exit (freeing the data directory). */
  stop(): Promise<void>;
}

/** Spawns `npm start -- <args>` on free ports with its data in `dataDir`. */
export async function spawnNpmStart(
  dataDir: string,
  args: readonly string[] = [],
): Promise<NpmStart> {
  const [port, dbPort] = [await freePort(), await freePort()];
  const child = spawn('npm', ['start', '--silent', ...(args.length ? ['--', ...args] : [])], {
    cwd: PROJECT_ROOT,
    env: {
      ...withoutExtraCaCerts(process.env),
      PORT: String(port),
      PLANT_STORE_DB_PORT: String(dbPort),
      PLANT_STORE_DATA_DIR: dataDir,
    },
    stdio: 'ignore',
    detached: true,
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return {
    child,
    url: `http://127.0.0.1:${port}`,
    async stop() {
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        // already gone
      }
      await exited;
    },
  };
}
