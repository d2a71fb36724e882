/**
 * The deliver function: an adapter from an SQS batch to one `deliver` per message, all at once
 * (a receiver that hangs delays none of the others), and a partial batch answer; a failed
 * attempt's message becomes visible again after the schedule's next delay.
 */
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { requireEnv } from '../shared/config';
import { makeDocumentClient } from '../shared/dynamodb';
import { WEBHOOK_METRICS } from '../shared/metrics-contract';
import { logger, metrics, observed, redact } from '../shared/observability';
import { sqsDeliveryQueue, type DeliveryQueue } from '../shared/webhook/delivery-queue';
import { SubscriptionsTable } from '../shared/webhook/subscriptions-table';
import { SUBSCRIPTIONS_TABLE } from '../shared/tables';
import { WEBHOOK_ENVIRONMENT } from '../shared/webhook/config';
import { kmsSecretBox, LOCAL_SECRET_BOX } from '../shared/webhook/secrets';
import { PUBLIC_ONLY } from '../shared/webhook/address-policy';
import { deliver, type DeliverDeps } from './deliver';

/** What the handler needs: the delivery's dependencies and the queue to reschedule on. */
export interface DeliverHandlerDeps extends DeliverDeps {
  readonly queue: Pick<DeliveryQueue, 'retryAfter'>;
}

/** Builds the handler around its dependencies, so tests can inject theirs. */
export function makeDeliverHandler(deps: DeliverHandlerDeps) {
  return observed(async (event: SQSEvent): Promise<SQSBatchResponse> => {
    // One lookup per subscriber per batch, not per message: a batch of 100 holds the deliveries
    // of a few subscribers, and a removed one is still noticed by the next batch.
    const lookups = new Map<string, ReturnType<DeliverDeps['subscriptions']['get']>>();
    const batchDeps: DeliverDeps = {
      ...deps,
      subscriptions: {
        get: (subscriberId) => {
          let lookup = lookups.get(subscriberId);
          if (!lookup) lookups.set(subscriberId, (lookup = deps.subscriptions.get(subscriberId)));
          return lookup;
        },
      },
    };
    const failures = await Promise.all(
      event.Records.map(async (record) => {
        try {
          const result = await deliver(record, batchDeps);
          const { outcome, retryAfterSeconds, failure, ...rest } = result;
          // A failure is Node's own message (never the body); redacted all the same.
          const fields = failure === undefined ? rest : { ...rest, failure: redact(failure) };
          if (outcome === 'delivered') {
            metrics.addMetric(WEBHOOK_METRICS.delivered, MetricUnit.Count, 1);
            logger.info(outcome, fields);
            return undefined;
          }
          if (outcome === 'dropped') {
            logger.info('dropped: the subscriber was removed', fields);
            return undefined;
          }
          metrics.addMetric(WEBHOOK_METRICS.failed, MetricUnit.Count, 1);
          if (outcome === 'dead-lettered') {
            metrics.addMetric(WEBHOOK_METRICS.deadLettered, MetricUnit.Count, 1);
          }
          logger.warn(outcome, { ...fields, retryAfterSeconds });
          await deps.queue.retryAfter(record.receiptHandle, retryAfterSeconds ?? 0);
        } catch (error) {
          // A store or KMS failure: the message comes back after the queue's visibility timeout.
          metrics.addMetric(WEBHOOK_METRICS.failed, MetricUnit.Count, 1);
          logger.error('error', {
            messageId: record.messageId,
            error: redact(String((error as Error)?.message ?? error)),
          });
        }
        return { itemIdentifier: record.messageId };
      }),
    );
    return { batchItemFailures: failures.filter((f) => f !== undefined) };
  });
}

/** Reads the configuration once, at cold start; a missing variable fails the start, by name. */
export function fromEnvironment(env: NodeJS.ProcessEnv = process.env): DeliverHandlerDeps {
  const keyId = env[WEBHOOK_ENVIRONMENT.secretsKey];
  return {
    subscriptions: new SubscriptionsTable(
      makeDocumentClient(),
      requireEnv(SUBSCRIPTIONS_TABLE.environmentVariable, env),
    ),
    secrets: keyId ? kmsSecretBox(keyId) : LOCAL_SECRET_BOX,
    policy:
      env[WEBHOOK_ENVIRONMENT.allowLoopback] === 'true' ? { allowLoopback: true } : PUBLIC_ONLY,
    queue: sqsDeliveryQueue(requireEnv(WEBHOOK_ENVIRONMENT.queueUrl, env)),
  };
}
