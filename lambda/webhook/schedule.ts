/**
 * The newPlant webhook's delivery schedule, defined once: the deliver function waits these
 * delays between the receiver's attempts (each failed attempt queues a copy that waits, through
 * its visibility timeout, the next delay), retries our own failures on a short clock of its
 * own, and the local queue runs the same numbers (scaled by `PLANT_STORE_WEBHOOK_RETRY_SCALE`).
 */

/**
 * Spread of the jitter: each delay of the schedule is drawn from its nominal value to 20 % more,
 * never less (so no delivery is given up before the horizon); our own retries spread ±20 %.
 */
export const JITTER = 0.2;

/**
 * Seconds to wait after each failed attempt, the spec's and Svix's first steps then every 10 h
 * until past three days: 5 s (a blip: a restart, a deploy), 5 min (a crash and its restart),
 * 30 min (someone paged), 2 h and 5 h (an outage being fixed), then 10 h seven times, so that a
 * receiver down from Friday evening to Monday morning still gets every plant. 10 h is the
 * longest step whose jitter (+20 %) stays within SQS's 12 h visibility timeout (counted from
 * the receive: the deliverer cuts off the seconds already gone, `visibility.ts`).
 */
export const RETRY_DELAYS_SECONDS: readonly number[] = [
  5, 300, 1_800, 7_200, 18_000, 36_000, 36_000, 36_000, 36_000, 36_000, 36_000, 36_000,
];

/** Attempts per delivery: the first and one after each delay; then it is dead-lettered. */
export const MAX_ATTEMPTS = RETRY_DELAYS_SECONDS.length + 1;

/**
 * How soon a delivery stopped by our own failure (the subscriptions table, the secrets key)
 * is tried again: 5 s after the first such receive, doubling to at most 5 min, with the same
 * jitter. It spends none of the receiver's attempts.
 */
export function ourRetrySeconds(receiveCount: number, random: () => number = Math.random): number {
  const nominal = Math.min(OUR_RETRY_MAX_SECONDS, 5 * 2 ** Math.max(0, receiveCount - 1));
  return Math.max(1, Math.round(nominal * (1 - JITTER + 2 * JITTER * random())));
}

/** The longest pause of `ourRetrySeconds`. */
export const OUR_RETRY_MAX_SECONDS = 300;

/**
 * Pauses between the deliver function's tries of one queue call (the next attempt's copy, a
 * dead letter, a visibility change), 7.75 s in all: a queue out of reach for less than that
 * costs the message nothing; longer, it comes back after its visibility timeout, still unspent.
 * A try that could not end before the invocation does is not made.
 */
export const QUEUE_RETRY_PAUSES_MS: readonly number[] = [250, 500, 1_000, 2_000, 4_000];

/**
 * Receives of one queued message before SQS itself moves it to the dead-letter queue: a safety
 * net for a message no invocation can settle (a crash on it, or our own outage), never the
 * receiver's count (each attempt's copy starts again at 0, and the deliver function
 * dead-letters after the last attempt itself). 100 receives at `ourRetrySeconds` span about
 * 8 h of our own outage.
 */
export const SAFETY_RECEIVE_COUNT = 100;

/**
 * The receive from which a delivery sent back to wait (for its subscriber's rate or its
 * `Retry-After` hold) is queued again as a fresh copy, its attempts unchanged, rather than made
 * visible again: waiting spends neither the receiver's attempts nor the receives of the safety
 * net, however long a backlog makes it wait. Half the net: the receives SQS counts are
 * approximate, and a copy costs one send per 50 receives.
 */
export const REFRESH_AT_RECEIVE_COUNT = SAFETY_RECEIVE_COUNT / 2;

/**
 * The horizon: no delivery is given up sooner than this after its first attempt (the delays'
 * sum, as jitter only ever lengthens a delay): 279,305 s, about 77 h 35 min.
 */
export const HORIZON_SECONDS = RETRY_DELAYS_SECONDS.reduce((sum, delay) => sum + delay, 0);

/** How long a receiver has to answer (connect, send, status line), in seconds. */
export const DELIVERY_TIMEOUT_SECONDS = 10;

/** The deliver function's timeout, in seconds: the registry deploys it with this. */
export const DELIVER_TIMEOUT_SECONDS = 30;

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
  const factor = 1 + JITTER * random();
  return Math.max(1, Math.round(nominal * factor));
}
