/** The local settings' defaults and parsing, shared by `npm start`, `npm run db` and `npm run token`. */

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
