/**
 * When and how long to wait before trying a call again. Every operation of the API is safe to
 * repeat (a create with the same id, name and tag answers 200 and writes nothing), so a call is
 * retried on an answer that says "not now" — 503, 429, and the gateway's own 500 — and when no
 * answer came at all (refused, reset, or the attempt's timeout); never on another 4xx or 5xx.
 */

/** How many times and how long to wait. */
export interface RetryOptions {
  /** Retries after the first attempt. @default 3 */
  readonly retries?: number;
  /** The first backoff; each retry doubles it, with full jitter. @default 200 */
  readonly baseDelayMs?: number;
  /** The longest wait; a `Retry-After` longer than this is not waited for. @default 20000 */
  readonly maxDelayMs?: number;
}

/** The options with their defaults. */
export type RetryPolicy = Required<RetryOptions>;

const DEFAULTS: RetryPolicy = { retries: 3, baseDelayMs: 200, maxDelayMs: 20_000 };

/** `options` over `base` (the defaults, or a client's policy under a call's), checked. */
export function retryPolicy(options: RetryOptions = {}, base: RetryPolicy = DEFAULTS): RetryPolicy {
  const policy = { ...base };
  for (const name of Object.keys(DEFAULTS) as (keyof RetryPolicy)[]) {
    const value = options[name];
    if (value === undefined) continue;
    if (!Number.isSafeInteger(value) || value < 0) {
      throw new TypeError(`retry.${name} must be a non-negative integer, not ${String(value)}`);
    }
    policy[name] = value;
  }
  return policy;
}

/** Whether an answer says to try again later. */
export function isRetryable(status: number, fromGateway: boolean): boolean {
  return status === 503 || status === 429 || (status === 500 && fromGateway);
}

/**
 * Whether an answer proves that its request changed nothing: a 429 (refused before the
 * function), or the service's own 503 to a read. The service's 503 to a write may follow a write
 * the store made without saying so; the gateway's 500 and 503 (integration failure or timeout)
 * may come after the function ran.
 */
export function changedNothing(status: number, fromGateway: boolean, method: string): boolean {
  return status === 429 || (status === 503 && !fromGateway && method === 'GET');
}

/**
 * Milliseconds to wait before retry number `retry` (0 for the first): at least `Retry-After`
 * when the answer had one, else exponential backoff with full jitter; `undefined` when the wait
 * would exceed `maxDelayMs` (the caller gives up and reports the answer).
 */
export function retryDelay(
  policy: RetryPolicy,
  retry: number,
  retryAfterSeconds?: number,
  random: () => number = Math.random,
): number | undefined {
  const backoff = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry);
  if (retryAfterSeconds === undefined) return Math.round(random() * backoff);
  const delay = retryAfterSeconds * 1000;
  if (delay > policy.maxDelayMs) return undefined;
  // Clients told the same Retry-After should not all come back in the same millisecond.
  return delay + Math.round(random() * policy.baseDelayMs);
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    signal?.throwIfAborted();
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
