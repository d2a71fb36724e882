/** The local settings' defaults and parsing, shared by `npm start`, `npm run db` and `npm run token`. */
import { UsageError } from '../cli-args';

/** The names of the loopback address the engine and the gateway listen on. */
export const LOOPBACK_HOST_NAMES: readonly string[] = ['127.0.0.1', 'localhost'];

/**
 * `PLANT_STORE_SANDBOX_IDLE_SECONDS`' default: Lambda keeps an idle execution environment for a
 * time it does not publish (minutes in practice); five minutes frees memory after a burst while
 * a developer's next request, a few minutes later, usually still finds a warm sandbox.
 */
export const DEFAULT_SANDBOX_IDLE_SECONDS = 300;

/**
 * Lambda's limit for a synchronous invocation's request payload (the event as JSON): 6 MB, in
 * the bytes Lambda's own error message gives ("must be smaller than 6291456 bytes").
 */
export const MAX_INVOKE_PAYLOAD_BYTES = 6 * 1024 * 1024;

/** `PLANT_STORE_INSPECT_PORT`'s default: Node's own inspector port, for the first function. */
export const DEFAULT_INSPECT_PORT = 9229;

/** `PORT`'s default. */
export const DEFAULT_PORT = 3000;
/** `PLANT_STORE_DB_PORT`'s default. */
export const DEFAULT_DB_PORT = 8000;
/** Requests the local gateway handles at once; beyond it, 429 as a stage throttle answers. */
export const MAX_REQUESTS_IN_FLIGHT = 64;
/**
 * `PLANT_STORE_CONCURRENCY`'s default: sandboxes per function at once. Lambda's account limit is
 * 1000; as many as the gateway takes in flight means a burst meets the gateway's 429 before a
 * throttled invocation's 500, and sandboxes start only when requests overlap. Lower it to see
 * throttling.
 */
export const DEFAULT_CONCURRENCY = MAX_REQUESTS_IN_FLIGHT;

/** An integer environment variable from 0 to `max`, `fallback` when unset or empty. */
export function envInteger(
  env: NodeJS.ProcessEnv,
  name: string,
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

/**
 * The local engine's URL for the CLIs that talk to it (`PLANT_STORE_DB_PORT` on 127.0.0.1); a
 * malformed port is the caller's mistake, so it is thrown as a usage error.
 */
export function localEngineEndpoint(env: NodeJS.ProcessEnv): string {
  try {
    return `http://127.0.0.1:${envInteger(env, 'PLANT_STORE_DB_PORT', DEFAULT_DB_PORT, 65535)}`;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}
