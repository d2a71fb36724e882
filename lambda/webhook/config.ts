/** The environment the webhook functions read, named once for the stack and the local runtime. */
export const WEBHOOK_ENVIRONMENT = {
  /** The delivery queue's URL (fan-out sends to it, deliver changes visibility on it). */
  queueUrl: 'DELIVERY_QUEUE_URL',
  /** The dead-letter queue's URL (deliver sends a delivery there after its last attempt). */
  deadLetterQueueUrl: 'DEAD_LETTER_QUEUE_URL',
  /** The stream failure queue's URL (fan-out sends a record there, whole, that can never succeed). */
  streamFailureQueueUrl: 'STREAM_FAILURE_QUEUE_URL',
  /** The KMS key that seals subscriber secrets; unset only locally, where secrets are kept as they are. */
  secretsKey: 'WEBHOOK_SECRETS_KEY',
  /** `true` only locally: deliveries may use http and reach loopback addresses. */
  allowLoopback: 'WEBHOOK_ALLOW_LOOPBACK',
  /**
   * Only locally: `PLANT_STORE_WEBHOOK_RETRY_SCALE`, by which the local queue multiplies every
   * wait; the deliverer divides its rate waits by it (they are real seconds) and scales the
   * waits it keeps itself (a `Retry-After` hold, the disable window).
   */
  retryScale: 'PLANT_STORE_WEBHOOK_RETRY_SCALE',
} as const;

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
