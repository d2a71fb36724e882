/** The local settings' defaults and parsing, shared by `npm start`, `npm run db` and `npm run token`. */

/** `PORT`'s default. */
export const DEFAULT_PORT = 3000;
/** `PLANT_STORE_DB_PORT`'s default. */
export const DEFAULT_DB_PORT = 8000;
/**
 * `PLANT_STORE_CONCURRENCY`'s default: sandboxes per function at once. Lambda's account limit is
 * 1000; 10 keeps a laptop responsive and still shows what concurrency does.
 */
export const DEFAULT_CONCURRENCY = 10;

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
