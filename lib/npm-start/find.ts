/**
 * A running `npm start` (or `npm run db`), as a command in another terminal finds it: its data
 * directory, the ports it recorded there, its dev token, and the SDK settings that reach its
 * engine and queues. With `spawn.ts` (starting one) and `in-process.ts` (the parts the lab
 * measures), this folder is all that lib/operator, lib/console, lib/generators, lib/release and
 * lib/lab import of the emulator; eslint.config.mjs holds them to it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { UsageError } from '../cli/args';
import { devTokenFile } from '../local/dev/dev-token';
import { portsFile, readRecordedPorts } from '../local/process/ports-file';
import { dataDirOf } from '../local/process/settings';

export { DEV_TOKEN_ID, devTokenFile } from '../local/dev/dev-token';
export {
  LOCAL_QUEUE_NAMES,
  LOCAL_SECRETS_KEY_ALIAS,
  localCliClientConfig,
  localQueueUrl,
} from '../local/names';
export type { Credentials } from '../local/iam/identities';
// npm start's and npm run db's help, for the CLI reference (lib/generators/docs/cli.ts).
export { DB_HELP, START_HELP } from '../local/process/options';
export { portsFile, readRecordedPorts, type RecordedPorts } from '../local/process/ports-file';
export { writePrivateFile } from '../local/process/private-dir';
export {
  DEFAULT_DB_PORT,
  DEFAULT_INSPECT_PORT,
  DEFAULT_PORT,
  DEFAULT_SANDBOX_IDLE_SECONDS,
  dataDirOf,
  findingNpmStart,
  localApiTarget,
  localEngineTarget,
  type LocalEngineTarget,
} from '../local/process/settings';
export { LOOPBACK_HOST_NAMES } from '../local/process/settings';
export { type Invocations } from '../local/dev/invocations';
export { detailOf, redacted, summaryOf } from '../local/dev/invocation-view';

/** The dev token `npm start` keeps in the data directory of `env`, or `undefined` when none is there. */
export function readDevToken(env: NodeJS.ProcessEnv): string | undefined {
  return readDevTokenIn(dataDirOf(env));
}

/**
 * npm start's dev token, for a command given no token that is about to call `url`: only a live
 * npm start that recorded `url` as its API (in the data directory of `env`) is sent it. On any
 * other port (the default one after npm start has stopped, where any local user may listen) the
 * full-scope token would go to whoever answers; nor on another name of its host (`localhost` may
 * reach [::1], where npm start does not listen and another user may). The usage error says so
 * and names PLANT_STORE_TOKEN.
 */
export function devTokenFor(url: string, env: NodeJS.ProcessEnv): string {
  const dataDir = dataDirOf(env);
  const file = portsFile(dataDir);
  const ports = readRecordedPorts(dataDir);
  const recorded = ports?.url;
  const token = recorded === undefined ? undefined : readDevTokenIn(dataDir);
  const why =
    recorded === undefined
      ? ports
        ? `what recorded its ports in ${file} is npm run db, which serves no API`
        : `none recorded its ports in ${file}`
      : new URL(recorded).origin !== new URL(url).origin
        ? `the one recorded in ${file} listens on ${recorded}, not ${url}`
        : token === undefined
          ? `the one at ${recorded} keeps none in ${dataDir}`
          : undefined;
  if (why !== undefined) {
    throw new UsageError(
      `no token: set PLANT_STORE_TOKEN (npm start's dev token goes only to a running npm start, and ${why})`,
    );
  }
  return token!;
}

/**
 * The token a command sends to `url`: the one it was given (`--token`), else
 * `PLANT_STORE_TOKEN`, else, when `url` is npm start's own (no `--url` was given), its dev token
 * (`devTokenFor`). Without any, a usage error.
 */
export function commandToken(
  given: string | undefined,
  url: string,
  npmStartUrl: boolean,
  env: NodeJS.ProcessEnv,
): string {
  const token =
    given ??
    (env.PLANT_STORE_TOKEN || undefined) ??
    (npmStartUrl ? devTokenFor(url, env) : undefined);
  if (!token) throw new UsageError('no token: set PLANT_STORE_TOKEN');
  return token;
}

/** The dev token kept in `dataDir`, or `undefined` when none is there (yet). */
export function readDevTokenIn(dataDir: string): string | undefined {
  try {
    return readFileSync(devTokenFile(dataDir), 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * Waits until an `npm start` starting with its data in `dataDir` has recorded its ports (it
 * listens, and its dev token is valid); resolves with the dev token. Fails once `exited()` says
 * it is gone, or after 120 s.
 */
export async function untilRecorded(dataDir: string, exited: () => boolean): Promise<string> {
  const started = performance.now();
  while (!existsSync(portsFile(dataDir))) {
    if (exited()) throw new Error('npm start exited before it was ready');
    if (performance.now() - started > 120_000) throw new Error('npm start was not ready in 120 s');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const token = readDevTokenIn(dataDir);
  if (!token) throw new Error(`npm start recorded its ports but keeps no dev token in ${dataDir}`);
  return token;
}
