/**
 * The deliver function: an adapter from an SQS batch to one `deliver` per message, all at once
 * (a receiver that hangs delays none of the others), each outcome's next step carried out on
 * the queue, and a partial batch answer: a message to receive again is reported failed. It
 * answers before its timeout, which would return the whole batch, delivered messages too: an
 * attempt starts only while it and one queue call after it fit in the time left, and a message
 * not done when the time is up is reported failed.
 */
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { requireEnv } from '../aws/config';
import { makeDocumentClient } from '../aws/dynamodb';
import { WEBHOOK_METRICS } from '../observability/metrics-contract';
import { logger, metrics, observed, redact } from '../observability/powertools';
import { SUBSCRIPTIONS_TABLE } from '../aws/tables';
import { PUBLIC_ONLY } from '../webhook/address-policy';
import { retryScaleOf, WEBHOOK_ENVIRONMENT } from '../webhook/config';
import {
  SQS_CALL_MAX_MS,
  sqsDeadLetters,
  sqsDeliveryQueue,
  type DeadLetters,
  type DeliveryQueue,
} from '../webhook/delivery-queue';
import { OurFailure } from './failure';
import { ReceiverGate, type GateDeps } from './receiver-gate';
import { SandboxReceivers } from './sandbox-receivers';
import { ReceiverStates } from '../webhook/receiver-state';
import { BatchResolver, type ResolverOptions } from './resolver';
import { DELIVER_TIMEOUT_SECONDS, QUEUE_RETRY_PAUSES_MS } from '../webhook/schedule';
import { kmsSecretBox, OpenedSecrets } from '../webhook/secrets';
import { SubscriptionsTable } from '../webhook/subscriptions-table';
import { deliver, type DeliverDeps, type DeliveryOutcome } from './deliver';
import type { Narrow } from '../aws/table-definition';
import { DELIVER_GRANTS } from './grants';

/** What the handler needs: the delivery's dependencies and the queues it acts on. */
export interface DeliverHandlerDeps extends Omit<DeliverDeps, 'gate'> {
  readonly queue: Narrow<DeliveryQueue, typeof DELIVER_GRANTS.queues.deliveries>;
  /** What each batch's gate reads and writes about the subscribers. @default - no gate */
  readonly receivers?: Omit<GateDeps, 'events'>;
  readonly deadLetters: Narrow<DeadLetters, typeof DELIVER_GRANTS.queues.deadLetters>;
  /** How each batch's resolver asks DNS. @default - the system's servers */
  readonly dns?: ResolverOptions;
  /** Pauses between tries of a queue call. @default QUEUE_RETRY_PAUSES_MS */
  readonly queueRetryPausesMs?: readonly number[];
}

/** How the operator hears of a subscriber: a log line and a metric (each alarmed by the stack). */
const OPERATOR: GateDeps['events'] = {
  disabled(subscriberId, reason) {
    metrics().addMetric(WEBHOOK_METRICS.subscribersDisabled, MetricUnit.Count, 1);
    logger().error('subscriber disabled: it receives nothing until webhook enable', {
      subscriberId,
      reason: redact(reason),
    });
  },
  failing(subscriberId, consecutiveFailures, since) {
    metrics().addMetric(WEBHOOK_METRICS.subscribersFailing, MetricUnit.Count, 1);
    logger().warn('subscriber failing: every attempt failed', {
      subscriberId,
      consecutiveFailures,
      since,
    });
  },
};

/** Builds the handler around its dependencies, so tests can inject theirs. */
export function makeDeliverHandler(deps: DeliverHandlerDeps) {
  // What the sandbox knows of the subscribers across its batches (their slots, their items).
  const sandbox =
    deps.receivers && (deps.receivers.sandbox ?? new SandboxReceivers(deps.receivers.states));
  return observed(async (event: SQSEvent, context): Promise<SQSBatchResponse> => {
    // When the invocation ends (called without a context, by a test: as if with its timeout).
    const remaining = context?.getRemainingTimeInMillis?.() ?? DELIVER_TIMEOUT_SECONDS * 1000;
    const end = Date.now() + remaining;
    // One resolution per host per batch, not per message; without a gate, one lookup per
    // subscriber per batch (a removed one, or a changed address, noticed by the next batch).
    const lookups = new Map<string, ReturnType<DeliverDeps['subscriptions']['get']>>();
    const gate =
      deps.receivers && new ReceiverGate({ ...deps.receivers, sandbox, events: OPERATOR });
    const batchDeps: DeliverDeps = {
      ...deps,
      gate,
      scale: deps.receivers?.scale,
      // Each message's next step needs one queue call after its attempt.
      attemptsEndBy: end - SETTLE_RESERVE_MS,
      resolver: new BatchResolver(deps.policy, deps.dns),
      subscriptions: {
        get: (subscriberId) => {
          let lookup = lookups.get(subscriberId);
          if (!lookup) lookups.set(subscriberId, (lookup = deps.subscriptions.get(subscriberId)));
          return lookup;
        },
      },
    };
    // The batch answers by its end, less the margin, whatever is still running: a timeout would
    // send every message back, delivered ones too. What is not done by then is reported failed.
    let timer: NodeJS.Timeout | undefined;
    // Work left running once the batch is answered resumes, if ever, in a later invocation (Lambda
    // freezes the sandbox): it then neither logs nor acts on the queue for a message reported.
    const batch = { answered: false };
    const late = new Promise<typeof LATE>((resolve) => {
      timer = setTimeout(resolve, Math.max(0, end - END_MARGIN_MS - Date.now()), LATE);
    });
    try {
      const again = await Promise.all(
        event.Records.map(async (record) => {
          const done = await Promise.race([receive(record, batchDeps, deps, end, batch), late]);
          if (done !== LATE) return done;
          // It comes back after its visibility timeout, its attempts unspent.
          logger().error('out of time: the message comes back', { messageId: record.messageId });
          return record.messageId;
        }),
      );
      const closed = await Promise.race([
        gate?.close().then(
          () => undefined,
          (e: unknown) => e,
        ),
        late,
      ]);
      if (closed !== undefined) {
        // What the batch taught is lost (the run of failures goes on); its deliveries are settled.
        const error = closed === LATE ? 'out of time' : describe(closed);
        logger().error('recording the attempts failed', { error });
      }
      return {
        batchItemFailures: again.flatMap((id) =>
          id === undefined ? [] : [{ itemIdentifier: id }],
        ),
      };
    } finally {
      batch.answered = true;
      clearTimeout(timer);
    }
  });
}

/** What a batch's deadline settles to. */
const LATE = Symbol('late');

/** One message: delivered (or not) and its next step carried out; its id when it is to come back. */
async function receive(
  record: SQSRecord,
  batchDeps: DeliverDeps,
  deps: DeliverHandlerDeps,
  end: number,
  batch: { readonly answered: boolean },
): Promise<string | undefined> {
  try {
    const outcome = await deliver(record, batchDeps);
    if (batch.answered) return undefined;
    report(outcome);
    return (await settle(record, outcome, deps, end)) ? undefined : record.messageId;
  } catch (error) {
    if (batch.answered) return undefined;
    // A bug, or the queue unreachable: the message comes back after its visibility timeout, its
    // attempts unspent (they are counted in the message).
    logger().error('error', { messageId: record.messageId, error: describe(error) });
    return record.messageId;
  }
}

/** What the invocation keeps after it answers its last message: its answer, its metrics. */
const END_MARGIN_MS = 1_000;

/** What each message's next step may take after its attempt: one queue call. */
const SETTLE_RESERVE_MS = SQS_CALL_MAX_MS + END_MARGIN_MS;

/**
 * Carries out the next step, trying a queue call again in place for a few seconds (our queue's
 * outage is ours, and a short one should not cost the visibility timeout), each try only while it
 * would end before the invocation does (at `end`); true when the received message is done with
 * (to be deleted).
 */
async function settle(
  record: SQSRecord,
  { next }: DeliveryOutcome,
  deps: DeliverHandlerDeps,
  end: number,
): Promise<boolean> {
  const retried = async (call: () => Promise<void>) => {
    let failure: unknown = 'too little of the invocation is left';
    for (const pause of [0, ...(deps.queueRetryPausesMs ?? QUEUE_RETRY_PAUSES_MS)]) {
      if (Date.now() + pause + SETTLE_RESERVE_MS > end) break;
      if (pause > 0) await new Promise((resolve) => setTimeout(resolve, pause));
      try {
        return await call();
      } catch (error) {
        failure = error;
      }
    }
    throw new OurFailure('reaching the queue', failure);
  };
  switch (next.step) {
    case 'done':
      return true;
    case 'requeue':
      await retried(() => deps.queue.send([next.copy]));
      return true;
    case 'dead-letter':
      await retried(() => deps.deadLetters.deadLetter(next.message));
      return true;
    case 'again-in':
      await retried(() => deps.queue.retryAfter(record.receiptHandle, next.seconds));
      return false;
  }
}

/** The log line and metrics of one outcome. */
function report(result: DeliveryOutcome): void {
  const { outcome, next, failure, ...fields } = result;
  const why =
    failure === undefined
      ? {}
      : failure instanceof OurFailure
        ? { owner: failure.owner, failure: describe(failure) }
        : { owner: failure.owner, failure: redact(failure.reason), status: failure.status };
  const line = { ...fields, ...why };
  if (outcome === 'delivered') {
    metrics().addMetric(WEBHOOK_METRICS.delivered, MetricUnit.Count, 1);
    logger().info(outcome, line);
  } else if (outcome === 'dropped') {
    logger().info('dropped: the subscriber was removed', line);
  } else if (outcome === 'disabled') {
    logger().info('dropped: the subscriber is disabled (kept for webhook enable)', line);
  } else if (outcome === 'gone') {
    metrics().addMetric(WEBHOOK_METRICS.failed, MetricUnit.Count, 1);
    logger().warn('gone: 410 disabled the subscriber (kept for webhook enable)', line);
  } else if (outcome === 'waiting') {
    // A wait as a fresh copy (`requeue`: its receives ran high) says so.
    const seconds =
      next.step === 'again-in' ? next.seconds : next.step === 'requeue' ? next.copy.waitSeconds : 0;
    logger().debug(outcome, {
      ...line,
      seconds,
      ...(next.step === 'requeue' && { freshCopy: true }),
    });
  } else if (failure instanceof OurFailure) {
    // Ours: no attempt spent; alarmed through the function's error log and this metric.
    metrics().addMetric(WEBHOOK_METRICS.ourFailures, MetricUnit.Count, 1);
    logger().error('our failure: retried soon, no attempt spent', {
      ...line,
      retryInSeconds: next.step === 'again-in' ? next.seconds : undefined,
    });
  } else if (outcome === 'unreadable') {
    logger().error('a message that is not a delivery', line);
  } else {
    metrics().addMetric(WEBHOOK_METRICS.failed, MetricUnit.Count, 1);
    if (outcome === 'dead-lettered') {
      metrics().addMetric(WEBHOOK_METRICS.deadLettered, MetricUnit.Count, 1);
    }
    const nextIn = next.step === 'requeue' ? next.copy.waitSeconds : undefined;
    logger().warn(outcome, { ...line, ...(nextIn === undefined ? {} : { nextInSeconds: nextIn }) });
  }
}

/** An error as one redacted line (Node's and the SDK's messages, never a body). */
function describe(error: unknown): string {
  return redact(String((error as Error)?.message ?? error));
}

/** Reads the configuration once, at cold start; a missing variable fails the start, by name. */
export function fromEnvironment(env: NodeJS.ProcessEnv = process.env): DeliverHandlerDeps {
  return {
    subscriptions: new SubscriptionsTable(
      makeDocumentClient(),
      requireEnv(SUBSCRIPTIONS_TABLE.environmentVariable, env),
    ),
    secrets: new OpenedSecrets(kmsSecretBox(requireEnv(WEBHOOK_ENVIRONMENT.secretsKey, env))),
    policy:
      env[WEBHOOK_ENVIRONMENT.allowLoopback] === 'true' ? { allowLoopback: true } : PUBLIC_ONLY,
    queue: sqsDeliveryQueue(requireEnv(WEBHOOK_ENVIRONMENT.queueUrl, env)),
    deadLetters: sqsDeadLetters(requireEnv(WEBHOOK_ENVIRONMENT.deadLetterQueueUrl, env)),
    receivers: {
      states: new ReceiverStates(
        makeDocumentClient(),
        requireEnv(SUBSCRIPTIONS_TABLE.environmentVariable, env),
      ),
      scale: retryScaleOf(env),
    },
  };
}
