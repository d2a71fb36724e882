/**
 * The newPlant webhook's delivery schedule, defined once: the deliver function waits these
 * delays between attempts (through the message's visibility timeout), the stack sizes the
 * queue's `maxReceiveCount` from them, and the local queue runs the same numbers (scaled by
 * `PLANT_STORE_WEBHOOK_RETRY_SCALE`).
 */

/** Seconds to wait after each failed attempt: about 5 s, 30 s, 2 min, 10 min, 1 h and 6 h. */
export const RETRY_DELAYS_SECONDS: readonly number[] = [5, 30, 120, 600, 3_600, 21_600];

/** Attempts per delivery: the first and one after each delay; then it is dead-lettered. */
export const MAX_ATTEMPTS = RETRY_DELAYS_SECONDS.length + 1;

/** How long a receiver has to answer (connect, send, status line), in seconds. */
export const DELIVERY_TIMEOUT_SECONDS = 10;

/**
 * Deliveries per invocation of the deliver function (each one in parallel). A receiver that
 * hangs holds its whole batch's invocation for the timeout, so large batches keep the hanging
 * ones in few invocations, and the deliverer's concurrency free for everyone else.
 */
export const DELIVERY_BATCH_SIZE = 100;

/**
 * How long a received message stays invisible while the deliver function runs: well over its
 * timeout, as Lambda asks of an SQS event source (a hanging receiver costs 10 s).
 */
export const DELIVERY_VISIBILITY_SECONDS = 180;

/** Spread of the jitter: each delay is drawn from ±20 % of its nominal value. */
const JITTER = 0.2;

/**
 * The whole seconds to wait after failed attempt `attempt` (1-based), with jitter so that the
 * retries of one outage do not arrive together; `undefined` after the last attempt.
 */
export function retryDelaySeconds(
  attempt: number,
  random: () => number = Math.random,
): number | undefined {
  const nominal = RETRY_DELAYS_SECONDS[attempt - 1];
  if (nominal === undefined) return undefined;
  const factor = 1 - JITTER + 2 * JITTER * random();
  return Math.max(1, Math.round(nominal * factor));
}
