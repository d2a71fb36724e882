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
  type GraphWidgetProps,
  type IMetric,
  type IWidget,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Alias, Key } from 'aws-cdk-lib/aws-kms';
import {
  FilterCriteria,
  StartingPosition,
  type Function as LambdaFunction,
} from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { WEBHOOK_METRICS } from '../../../lambda/shared/metrics-contract';
import { WEBHOOK_ENVIRONMENT } from '../../../lambda/shared/webhook/config';
import { DELIVERY_SOURCE, STREAM_FILTER_PATTERN, STREAM_SOURCE } from '../../definitions/webhooks';
import { businessMetric } from './monitoring';

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
   * How long an undelivered message is kept on the delivery queue; longer than the whole retry
   * schedule (about 7 h 15 min).
   * @default Duration.days(4)
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
  /** Where the stream mapping sends a record it gave up on (its position, not the plant). */
  readonly streamFailureQueue: Queue;
  /** Seals subscriber secrets; alias `alias/<subscriptions table name>` for the CLI. */
  readonly secretsKey: Key;
  /** Graphs for the dashboard. */
  readonly widgets: IWidget[];
  /** Metrics to alarm on at any non-zero value, by alarm id. */
  readonly alarmMetrics: Record<string, IMetric>;

  constructor(scope: Construct, id: string, props: WebhooksProps) {
    super(scope, id);
    const { plantsTable, fanOut, deliver } = props;
    if (!plantsTable.tableStreamArn) {
      throw new Error(`the plants table ${plantsTable.node.path} has no stream`);
    }
    const retentionPeriod = props.retentionPeriod ?? Duration.days(4);
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

    this.secretsKey = new Key(this, 'SecretsKey', {
      description: 'Plant Store webhook subscriber secrets',
      enableKeyRotation: true,
    });
    new Alias(this, 'SecretsKeyAlias', {
      aliasName: `alias/${props.subscriptionsTable.tableName}`,
      targetKey: this.secretsKey,
    });

    fanOut.addEnvironment(WEBHOOK_ENVIRONMENT.queueUrl, this.deliveryQueue.queueUrl);
    this.deliveryQueue.grantSendMessages(fanOut);
    fanOut.addEventSource(
      new DynamoEventSource(plantsTable, {
        startingPosition: StartingPosition.LATEST,
        batchSize: STREAM_SOURCE.batchSize,
        retryAttempts: STREAM_SOURCE.retryAttempts,
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
    deliver.addEnvironment(WEBHOOK_ENVIRONMENT.secretsKey, this.secretsKey.keyArn);
    this.secretsKey.grantDecrypt(deliver);
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
    // Three widgets side by side: a row of the dashboard.
    const graph = (props: GraphWidgetProps) => new GraphWidget({ width: 8, height: 6, ...props });
    this.widgets = [
      graph({
        title: 'Webhook: queued, delivered, failed attempts, dead-lettered',
        left: [
          metric(WEBHOOK_METRICS.queued, 'fan-out'),
          metric(WEBHOOK_METRICS.delivered, 'deliver'),
          metric(WEBHOOK_METRICS.failed, 'deliver'),
          metric(WEBHOOK_METRICS.deadLettered, 'deliver'),
        ],
      }),
      graph({
        title: 'Webhook queues: waiting, oldest (s)',
        left: [
          this.deliveryQueue.metricApproximateNumberOfMessagesVisible({ period }),
          this.deliveryQueue.metricApproximateNumberOfMessagesNotVisible({ period }),
        ],
        right: [this.deliveryQueue.metricApproximateAgeOfOldestMessage({ period })],
      }),
      graph({
        title: 'Webhook dead letters and stream failures',
        left: [
          this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period }),
          this.streamFailureQueue.metricApproximateNumberOfMessagesVisible({ period }),
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
    };
  }
}
