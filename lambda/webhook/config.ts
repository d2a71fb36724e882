/** The environment the webhook functions read, named once for the stack and the local runtime. */
export const WEBHOOK_ENVIRONMENT = {
  /** The delivery queue's URL (fan-out sends to it, deliver changes visibility on it). */
  queueUrl: 'DELIVERY_QUEUE_URL',
  /** The dead-letter queue's URL (deliver sends a delivery there after its last attempt). */
  deadLetterQueueUrl: 'DEAD_LETTER_QUEUE_URL',
  /** The stream failure queue's URL (fan-out sends a record there, whole, that can never succeed). */
  streamFailureQueueUrl: 'STREAM_FAILURE_QUEUE_URL',
  /** The KMS key that seals subscriber secrets (its ARN; locally, its alias on npm start's KMS). */
  secretsKey: 'WEBHOOK_SECRETS_KEY',
  /** `true` only locally: deliveries may use http and reach loopback addresses. */
  allowLoopback: 'WEBHOOK_ALLOW_LOOPBACK',
  /**
   * Only locally: `PLANT_STORE_WEBHOOK_RETRY_SCALE`, by which the local queue multiplies every
   * wait; the deliverer divides its rate waits by it (they are real seconds) and scales the
   * waits it keeps itself (a `Retry-After` hold, the disable window).
   */
  retryScale: 'PLANT_STORE_WEBHOOK_RETRY_SCALE',
  /**
   * How long a fan-out sandbox keeps the subscriber list, in seconds; `0` reads it on every
   * batch (`npm start`, whose `webhook add` does not wait). @default SUBSCRIBERS_FRESH_SECONDS
   */
  subscribersFreshSeconds: 'WEBHOOK_SUBSCRIBERS_FRESH_SECONDS',
} as const;

/**
 * How long a deployed fan-out sandbox keeps the subscriber list (a strongly consistent Scan),
 * counted from when its read began. `webhook add --aws` returns only after this and a second
 * more, so a plant stored after `add` returned is fanned out by a list read after the subscriber
 * was written: "every subscriber registered at that moment" holds. A removed subscriber may still
 * be queued deliveries for as long; the deliverer finds it gone and drops them.
 */
export const SUBSCRIBERS_FRESH_SECONDS = 10;

/**
 * `subscribersFreshSeconds` from `env`: a whole number of seconds, 0 to the default (`webhook
 * add --aws` waits the default and a second, so a longer one would break its promise); unset is
 * the default.
 */
export function subscribersFreshSecondsOf(env: NodeJS.ProcessEnv): number {
  const raw = env[WEBHOOK_ENVIRONMENT.subscribersFreshSeconds];
  if (raw === undefined || raw === '') return SUBSCRIBERS_FRESH_SECONDS;
  const seconds = Number(raw);
  if (!Number.isInteger(seconds) || seconds < 0 || seconds > SUBSCRIBERS_FRESH_SECONDS) {
    throw new Error(
      `${WEBHOOK_ENVIRONMENT.subscribersFreshSeconds} must be a whole number of seconds from 0 to ${SUBSCRIBERS_FRESH_SECONDS}, not ${raw}`,
    );
  }
  return seconds;
}

/** `retryScale` from `env`: a number above 0, at most 1; unset (deployed) is 1. */
export function retryScaleOf(env: NodeJS.ProcessEnv): number {
  const raw = env[WEBHOOK_ENVIRONMENT.retryScale];
  if (raw === undefined || raw === '') return 1;
  const scale = Number(raw);
  if (!(scale > 0 && scale <= 1)) {
    throw new Error(`${WEBHOOK_ENVIRONMENT.retryScale} must be above 0 and at most 1, not ${raw}`);
  }
  return scale;
}
