/**
 * The metric contract: the namespace, metric names and dimensions the functions emit and the
 * dashboard and alarms read. Plain constants, apart from the Powertools objects that emit them
 * (`powertools.ts`), so that the stack can read them without building a Logger or Metrics.
 */

/** The CloudWatch namespace of every business metric. */
export const METRICS_NAMESPACE = 'PlantStore';

/** The dimension that names the function (Powertools' default dimension). */
export const SERVICE_DIMENSION = 'service';

/** The dimension of `Denied` that says why the authorizer said no. */
export const REASON_DIMENSION = 'reason';

/** Why the authorizer denies; each is a value of the `reason` dimension of `Denied`. */
export const DENIAL_REASONS = ['malformed', 'unknown', 'expired', 'malformed-item'] as const;

/**
 * The outcome of one request and the metric that counts it: every request adds exactly one to
 * exactly one of these, so their sum is the number of requests a function answered.
 */
export const OUTCOME_METRICS = {
  created: 'PlantsCreated',
  unchanged: 'RetriesAnswered',
  conflict: 'Conflicts',
  invalid: 'ValidationFailures',
  forbidden: 'MissingScope',
  read: 'PlantsRead',
  listed: 'PagesListed',
  'not-found': 'NotFound',
  deleted: 'PlantsDeleted',
  updated: 'PlantsUpdated',
  'precondition-failed': 'PreconditionsFailed',
  'not-modified': 'NotModified',
  allowed: 'Allowed',
  denied: 'Denied',
  unavailable: 'StoreUnavailable',
  error: 'Errors',
} as const;

/** What became of a request. */
export type Outcome = keyof typeof OUTCOME_METRICS;

/**
 * The newPlant webhook's metrics: deliveries queued by the fan-out, attempts that succeeded or
 * failed, and deliveries given up after the last attempt (each then lies in the dead-letter queue).
 */
export const WEBHOOK_METRICS = {
  queued: 'WebhooksQueued',
  delivered: 'WebhooksDelivered',
  failed: 'WebhookAttemptsFailed',
  deadLettered: 'WebhooksDeadLettered',
  /**
   * Receives stopped by our own store, key or queue, or by too little time left in the
   * invocation to start an attempt: retried soon, no attempt spent.
   */
  ourFailures: 'WebhookOurFailures',
  /** Subscribers disabled (a 410, or nothing but failures for 5 days): the operator is told. */
  subscribersDisabled: 'WebhookSubscribersDisabled',
  /** Subscribers whose run of failures reached its 4th attempt: the operator is warned. */
  subscribersFailing: 'WebhookSubscribersFailing',
} as const;
