/** The fan-out function: an adapter from a DynamoDB stream batch to `fanOut` and a partial batch answer. */
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { requireEnv } from '../aws/config';
import { makeDocumentClient } from '../aws/dynamodb';
import { WEBHOOK_METRICS } from '../observability/metrics-contract';
import { logger, metrics, observed, redact } from '../observability/powertools';
import { SUBSCRIPTIONS_TABLE } from '../aws/tables';
import { subscribersFreshSecondsOf, WEBHOOK_ENVIRONMENT } from '../webhook/config';
import { sqsDeliveryQueue, sqsJsonQueue } from '../webhook/delivery-queue';
import { SubscriptionsTable } from '../webhook/subscriptions-table';
import { FAN_OUT_RESERVE_MS, fanOut, type FanOutDeps } from './fan-out';
import { freshSubscribers } from './fresh-subscribers';
import type { Narrow } from '../aws/table-definition';
import { FAN_OUT_GRANTS } from './grants';

/** Builds the handler around its dependencies, so tests can inject theirs. */
export function makeFanOutHandler(deps: FanOutDeps) {
  return observed(async (event: DynamoDBStreamEvent, context): Promise<DynamoDBBatchResponse> => {
    // What failed is sent again until the reserve before the timeout, then reported (called
    // without a context, by a test: as if with the registry's 30 s).
    const remaining = context?.getRemainingTimeInMillis() ?? 30_000;
    const until = Date.now() + Math.max(0, remaining - FAN_OUT_RESERVE_MS);
    const { queued, setAside, failedAt } = await fanOut(event.Records, deps, { until });
    metrics().addMetric(WEBHOOK_METRICS.queued, MetricUnit.Count, queued);
    for (const { reason, record } of setAside) {
      logger().error('a record that can never be delivered went to the stream failure queue', {
        sequenceNumber: record.dynamodb?.SequenceNumber,
        reason: redact(reason),
      });
    }
    if (!failedAt) {
      logger().info('queued', { records: event.Records.length, deliveries: queued });
      return { batchItemFailures: [] };
    }
    logger().error('fan-out failed; the stream retries from this record', {
      sequenceNumber: failedAt.sequenceNumber,
      deliveries: queued,
      error: redact(String((failedAt.error as Error)?.message ?? failedAt.error)),
    });
    return { batchItemFailures: [{ itemIdentifier: failedAt.sequenceNumber }] };
  });
}

/** Reads the configuration once, at cold start; a missing variable fails the start, by name. */
export function fromEnvironment(env: NodeJS.ProcessEnv = process.env): FanOutDeps {
  const table: Narrow<SubscriptionsTable, typeof FAN_OUT_GRANTS.tables.subscriptions> =
    new SubscriptionsTable(
      makeDocumentClient(),
      requireEnv(SUBSCRIPTIONS_TABLE.environmentVariable, env),
    );
  return {
    subscribers: freshSubscribers(() => table.list(), subscribersFreshSecondsOf(env) * 1000),
    queue: sqsDeliveryQueue(requireEnv(WEBHOOK_ENVIRONMENT.queueUrl, env)),
    failures: sqsJsonQueue(requireEnv(WEBHOOK_ENVIRONMENT.streamFailureQueueUrl, env)),
  };
}
