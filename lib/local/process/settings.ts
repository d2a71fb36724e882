/** The local settings' defaults and parsing, shared by `npm start`, `npm run db` and `npm run token`. */
import { resolve } from 'node:path';
import {
  LOCAL_ENVIRONMENT,
  LOCAL_REQUESTS_IN_FLIGHT,
  type LocalVariable,
} from '../../definitions/settings';
import { UsageError } from '../../cli/args';
import { readFileSync } from 'node:fs';
import { operatorFile } from '../iam/identities';
import type { Credentials } from '../iam/identities';
import { portsFile, readRecordedPorts } from './ports-file';

/** The names of the loopback address the engine and the gateway listen on. */
export const LOOPBACK_HOST_NAMES: readonly string[] = ['127.0.0.1', 'localhost'];

/**
 * `PLANT_STORE_SANDBOX_IDLE_SECONDS`' default: Lambda keeps an idle execution environment for a
 * time it does not publish (minutes in practice); five minutes frees memory after a burst while
 * a developer's next request, a few minutes later, usually still finds a warm sandbox.
 */
export const DEFAULT_SANDBOX_IDLE_SECONDS =
  LOCAL_ENVIRONMENT.PLANT_STORE_SANDBOX_IDLE_SECONDS.default;

/** `PLANT_STORE_INSPECT_PORT`'s default: Node's own inspector port, for the first function. */
export const DEFAULT_INSPECT_PORT = LOCAL_ENVIRONMENT.PLANT_STORE_INSPECT_PORT.default;

/** `PLANT_STORE_DATA_DIR`'s default, in the working directory. */
export const DEFAULT_DATA_DIR = LOCAL_ENVIRONMENT.PLANT_STORE_DATA_DIR.default;

/** The data directory, absolute: `PLANT_STORE_DATA_DIR`, else `.plant-store`. */
export function dataDirOf(env: NodeJS.ProcessEnv): string {
  return resolve(env.PLANT_STORE_DATA_DIR || DEFAULT_DATA_DIR);
}

/** `PORT`'s default. */
export const DEFAULT_PORT = LOCAL_ENVIRONMENT.PORT.default;
/** `PLANT_STORE_DB_PORT`'s default. */
export const DEFAULT_DB_PORT = LOCAL_ENVIRONMENT.PLANT_STORE_DB_PORT.default;
/** Requests the local gateway handles at once; beyond it, 429 as a stage throttle answers. */
export const MAX_REQUESTS_IN_FLIGHT = LOCAL_REQUESTS_IN_FLIGHT;
/**
 * `PLANT_STORE_CONCURRENCY`'s default: sandboxes per function at once. Lambda's account limit is
 * 1000; as many as the gateway takes in flight means a burst meets the gateway's 429 before a
 * throttled invocation's 500, and sandboxes start only when requests overlap. Lower it to see
 * throttling.
 */
export const DEFAULT_CONCURRENCY = LOCAL_ENVIRONMENT.PLANT_STORE_CONCURRENCY.default;

/** An integer environment variable from 0 to `max`, `fallback` when unset or empty. */
export function envInteger(
  env: NodeJS.ProcessEnv,
  name: LocalVariable,
  fallback: number,
  max: number,
): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) > max) {
    throw new Error(`${name} must be an integer from 0 to ${max}, not ${raw}`);
  }
  return Number(raw);
}

/** Where the CLIs find the local engine, and what they say when it cannot be reached. */
export interface LocalEngineTarget {
  readonly endpoint: string;
  /** "the local engine at <url>", for messages. */
  readonly where: string;
  /** One line naming the URL tried, where it came from and the variable that sets it. */
  readonly unreachable: string;
  /**
   * The operator's keys, which the engine, queues and key require, kept in the data directory
   * by `npm start` or `npm run db` (none before their first start: every call is then refused).
   */
  readonly credentials: Credentials;
}

/**
 * The local engine for the CLIs that talk to it: `PLANT_STORE_DB_PORT` when set (it wins), else
 * the port a running `npm start` or `npm run db` recorded in its data directory
 * (`PLANT_STORE_DATA_DIR`, `.plant-store` by default), else the default port. A malformed port
 * is the caller's mistake, so it is thrown as a usage error.
 */
export function localEngineTarget(env: NodeJS.ProcessEnv): LocalEngineTarget {
  let port: number;
  let from: string;
  try {
    port = envInteger(env, 'PLANT_STORE_DB_PORT', DEFAULT_DB_PORT, 65535);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const dataDir = dataDirOf(env);
  const recorded = env.PLANT_STORE_DB_PORT ? undefined : readRecordedPorts(dataDir);
  if (env.PLANT_STORE_DB_PORT) from = 'from PLANT_STORE_DB_PORT';
  else if (recorded) {
    port = recorded.dbPort;
    from = `recorded by process ${recorded.pid} in ${portsFile(dataDir)}`;
  } else from = `the default: no npm start or npm run db recorded its ports in ${dataDir}`;
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    credentials: operatorCredentials(dataDir),
    where: `the local engine at ${endpoint}`,
    unreachable: `cannot reach the local engine at ${endpoint} (${from}); start npm start (or npm run db), or set PLANT_STORE_DB_PORT to the engine port its banner prints`,
  };
}

/** The operator's keys kept in `dataDir` (empty ones, which the engine refuses, before any). */
function operatorCredentials(dataDir: string): Credentials {
  try {
    const { accessKeyId, secretAccessKey } = JSON.parse(
      readFileSync(operatorFile(dataDir), 'utf8'),
    ) as Credentials;
    return { accessKeyId: String(accessKeyId), secretAccessKey: String(secretAccessKey) };
  } catch {
    return { accessKeyId: 'none', secretAccessKey: `no operator keys in ${dataDir} yet` };
  }
}

/**
 * The local API for the CLIs that call it (`npm run smoke` without `--url`): `PORT` when set
 * (it wins, as `npm start` reads it), else the URL a running `npm start` recorded in its data
 * directory, else the default port.
 */
export function localApiTarget(env: NodeJS.ProcessEnv): {
  readonly url: string;
  readonly from: string;
} {
  const dataDir = dataDirOf(env);
  const recorded = env.PORT ? undefined : readRecordedPorts(dataDir)?.url;
  if (recorded) return { url: recorded, from: `recorded in ${portsFile(dataDir)}` };
  let port: number;
  try {
    port = envInteger(env, 'PORT', DEFAULT_PORT, 65535);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  return {
    url: `http://127.0.0.1:${port}`,
    from: env.PORT
      ? 'from PORT'
      : `the default: no npm start recorded its ports in ${portsFile(dataDir)}`,
  };
}

/**
 * How the CLIs find a running `npm start`, as their `--help` says it: `what` is the part they
 * reach, the lines indented by `indent`.
 */
export function findingNpmStart(what: 'engine' | 'API', indent: string): string {
  const [variable, port] =
    what === 'engine' ? ['PLANT_STORE_DB_PORT', DEFAULT_DB_PORT] : ['PORT', DEFAULT_PORT];
  return [
    `npm start's ${what}, found where a running npm start${what === 'engine' ? ' (or npm run db)' : ''} records its`,
    `ports: $PLANT_STORE_DATA_DIR/ports.json (default ${DEFAULT_DATA_DIR}/ports.json); ${variable},`,
    `when set, wins; with neither, http://127.0.0.1:${port}`,
  ]
    .map((line, i) => (i === 0 ? line : `${indent}${line}`))
    .join('\n');
}

/** `localEngineTarget(env).endpoint`. */
export function localEngineEndpoint(env: NodeJS.ProcessEnv): string {
  return localEngineTarget(env).endpoint;
}
