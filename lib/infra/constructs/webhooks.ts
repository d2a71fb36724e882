/**
 * The newPlant webhook in AWS: the plants table's stream (inserts only, by Lambda's event filter)
 * invokes the fan-out, which queues one message per subscriber and plant; the delivery queue
 * invokes the deliver function, whose failed attempts come back after the schedule's delays (it
 * sets each message's visibility) until the last, after which the queue moves the message to the
 * dead-letter queue, which is alarmed. Subscriber secrets are sealed with this construct's KMS key.
 */
import { Duration, Validations } from 'aws-cdk-lib';
import {
  GraphWidget,
  Stats,
  type GraphWidgetProps,
  type IMetric,
  type IWidget,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { PolicyDocument } from 'aws-cdk-lib/aws-iam';
import { Alias, Key } from 'aws-cdk-lib/aws-kms';
import {
  FilterCriteria,
  StartingPosition,
  type Function as LambdaFunction,
} from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { WEBHOOK_METRICS } from '../../../lambda/observability/metrics-contract';
import { WEBHOOK_ENVIRONMENT } from '../../../lambda/webhook/config';
import { MAX_RETRY_AFTER_SECONDS } from '../../../lambda/webhook/retry-after';
import { HORIZON_SECONDS } from '../../../lambda/webhook/schedule';
import { DELIVERY_SOURCE, STREAM_FILTER_PATTERN, STREAM_SOURCE } from '../../definitions/webhooks';
import { businessMetric, type ThresholdAlarm } from './monitoring';

/** What the webhook is built from. */
export interface WebhooksProps {
  /** The plants table; it must have a stream with new images. */
  readonly plantsTable: ITable;
  /** The subscriptions table; the secrets key's alias is named after it. */
  readonly subscriptionsTable: ITable;
  /** The fan-out function (registry entry `fan-out`). */
  readonly fanOut: LambdaFunction;
  /** The deliver function (registry entry `deliver`). */
  readonly deliver: LambdaFunction;
  /**
   * The secrets key's policy: who administers it, seals and opens subscriber secrets (from the
   * registry, lib/definitions/policies.ts).
   */
  readonly secretsKeyPolicy: PolicyDocument;
  /**
   * How long an undelivered message is kept on the delivery queue; longer than the whole retry
   * schedule (at most 3.9 days with its jitter) and the waits receivers ask for.
   * @default Duration.days(14) - SQS's maximum
   */
  readonly retentionPeriod?: Duration;
  /**
   * How long a dead letter is kept, counted from when the plant was first queued (SQS keeps the
   * original timestamp): the time an operator has to redrive it.
   * @default Duration.days(14) - SQS's maximum
   */
  readonly deadLetterRetentionPeriod?: Duration;
  /**
   * The period of the graphs and alarms.
   * @default Duration.minutes(5)
   */
  readonly period?: Duration;
}

/** The stream's and queue's wiring, the dead letters, the secrets key, and what to watch. */
export class Webhooks extends Construct {
  readonly deliveryQueue: Queue;
  readonly deadLetterQueue: Queue;
  /**
   * Where a stream record goes that is never delivered: the mapping's record past the maximum
   * age (its position only: replay delivers its plant), and the fan-out's record that can never
   * become deliveries (whole).
   */
  readonly streamFailureQueue: Queue;
  /** Seals subscriber secrets; alias `alias/<subscriptions table name>` for the CLI. */
  readonly secretsKey: Key;
  /** Graphs for the dashboard. */
  readonly widgets: IWidget[];
  /** Metrics to alarm on, by alarm id: at any non-zero value, or past a threshold. */
  readonly alarmMetrics: Record<string, IMetric | ThresholdAlarm>;

  constructor(scope: Construct, id: string, props: WebhooksProps) {
    super(scope, id);
    const { plantsTable, fanOut, deliver } = props;
    if (!plantsTable.tableStreamArn) {
      throw new Error(`the plants table ${plantsTable.node.path} has no stream`);
    }
    const retentionPeriod = props.retentionPeriod ?? Duration.days(14);
    const period = props.period ?? Duration.minutes(5);

    this.deadLetterQueue = new Queue(this, 'DeadLetterQueue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: props.deadLetterRetentionPeriod ?? Duration.days(14),
    });
    this.deliveryQueue = new Queue(this, 'DeliveryQueue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod,
      visibilityTimeout: Duration.seconds(DELIVERY_SOURCE.visibilityTimeoutSeconds),
      deadLetterQueue: {
        queue: this.deadLetterQueue,
        maxReceiveCount: DELIVERY_SOURCE.maxReceiveCount,
      },
    });
    this.streamFailureQueue = new Queue(this, 'StreamFailureQueue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    Validations.of(this.streamFailureQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: 'it is the on-failure destination of the stream mapping: a dead-letter queue itself',
    });

    // The key policy is the whole of who may do what (lib/definitions/policies.ts).
    this.secretsKey = new Key(this, 'SecretsKey', {
      description: 'Plant Store webhook subscriber secrets',
      enableKeyRotation: true,
      policy: props.secretsKeyPolicy,
    });
    new Alias(this, 'SecretsKeyAlias', {
      aliasName: `alias/${props.subscriptionsTable.tableName}`,
      targetKey: this.secretsKey,
    });

    fanOut.addEnvironment(WEBHOOK_ENVIRONMENT.queueUrl, this.deliveryQueue.queueUrl);
    fanOut.addEnvironment(
      WEBHOOK_ENVIRONMENT.streamFailureQueueUrl,
      this.streamFailureQueue.queueUrl,
    );
    fanOut.addEventSource(
      new DynamoEventSource(plantsTable, {
        startingPosition: StartingPosition.LATEST,
        batchSize: STREAM_SOURCE.batchSize,
        parallelizationFactor: STREAM_SOURCE.parallelizationFactor,
        // No retry count (Lambda's default, -1): a failing record is retried until this age.
        maxRecordAge: Duration.seconds(STREAM_SOURCE.maxRecordAgeSeconds),
        bisectBatchOnError: true,
        reportBatchItemFailures: true,
        onFailure: new SqsDlq(this.streamFailureQueue),
        filters: [FilterCriteria.filter(STREAM_FILTER_PATTERN)],
      }),
    );
    // The stream mapping's own grant: dynamodb:ListStreams has no resource to name.
    Validations.of(fanOut.role!).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'dynamodb:ListStreams supports only Resource * (the stream read itself is on the stream ARN)',
    });

    deliver.addEnvironment(WEBHOOK_ENVIRONMENT.queueUrl, this.deliveryQueue.queueUrl);
    deliver.addEnvironment(WEBHOOK_ENVIRONMENT.deadLetterQueueUrl, this.deadLetterQueue.queueUrl);
    deliver.addEnvironment(WEBHOOK_ENVIRONMENT.secretsKey, this.secretsKey.keyArn);
    deliver.addEventSource(
      new SqsEventSource(this.deliveryQueue, {
        batchSize: DELIVERY_SOURCE.batchSize,
        maxBatchingWindow: Duration.seconds(DELIVERY_SOURCE.maxBatchingWindowSeconds),
        maxConcurrency: DELIVERY_SOURCE.maxConcurrency,
        reportBatchItemFailures: true,
      }),
    );

    const metric = (name: string, service: 'fan-out' | 'deliver') =>
      businessMetric(name, service, period);
    // How far behind the stream the fan-out is: the age of the last record it was given.
    const iteratorAge = fanOut.metric('IteratorAge', { period, statistic: Stats.MAXIMUM });
    // Three widgets side by side: a row of the dashboard.
    const graph = (props: GraphWidgetProps) => new GraphWidget({ width: 8, height: 6, ...props });
    this.widgets = [
      graph({
        title: 'Webhook: queued, delivered, failed, dead-lettered, ours; stream iterator age (ms)',
        left: [
          metric(WEBHOOK_METRICS.queued, 'fan-out'),
          metric(WEBHOOK_METRICS.delivered, 'deliver'),
          metric(WEBHOOK_METRICS.failed, 'deliver'),
          metric(WEBHOOK_METRICS.deadLettered, 'deliver'),
          metric(WEBHOOK_METRICS.ourFailures, 'deliver'),
        ],
        right: [iteratorAge],
      }),
      graph({
        title: 'Webhook queues: waiting, oldest (s)',
        left: [
          this.deliveryQueue.metricApproximateNumberOfMessagesVisible({ period }),
          this.deliveryQueue.metricApproximateNumberOfMessagesNotVisible({ period }),
        ],
        right: [this.deliveryQueue.metricApproximateAgeOfOldestMessage({ period })],
        // What the oldest message's age is measured against: the schedule's longest wait and
        // its whole horizon (older than that, receivers' waits or our outage hold deliveries).
        rightAnnotations: [
          { value: MAX_RETRY_AFTER_SECONDS, label: 'longest wait, 12 h' },
          { value: HORIZON_SECONDS, label: `horizon, ${Math.round(HORIZON_SECONDS / 3600)} h` },
        ],
      }),
      graph({
        title: 'Webhook dead letters and stream failures; subscribers failing, disabled',
        left: [
          this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period }),
          this.streamFailureQueue.metricApproximateNumberOfMessagesVisible({ period }),
        ],
        right: [
          metric(WEBHOOK_METRICS.subscribersFailing, 'deliver'),
          metric(WEBHOOK_METRICS.subscribersDisabled, 'deliver'),
        ],
      }),
    ];
    this.alarmMetrics = {
      WebhookDeadLetters: this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
        period,
        statistic: 'Maximum',
      }),
      WebhookStreamFailures: this.streamFailureQueue.metricApproximateNumberOfMessagesVisible({
        period,
        statistic: 'Maximum',
      }),
      WebhookDeliveriesStalled: {
        metric: fanOut.metric('IteratorAge', {
          period: Duration.minutes(1),
          statistic: Stats.MAXIMUM,
        }),
        threshold: STREAM_SOURCE.stalledAfterSeconds * 1000,
        description: `deliveries stalled for ${STREAM_SOURCE.stalledAfterSeconds / 60} minutes: the fan-out is that far behind the plants stream (a failing record blocks its shard until it succeeds or passes the maximum record age); see docs/runbook.md`,
      },
      // The operator is told when a subscriber is disabled, and warned when one starts failing
      // (its 4th failed attempt in a row); the deliver log says which and why.
      WebhookSubscriberDisabled: metric(WEBHOOK_METRICS.subscribersDisabled, 'deliver'),
      WebhookSubscriberFailing: metric(WEBHOOK_METRICS.subscribersFailing, 'deliver'),
    };
  }
}
