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
} as const;
