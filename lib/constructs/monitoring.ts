/**
 * What an operator watches: one CloudWatch dashboard (the API, each function of the registry,
 * the tables, the business metrics the functions emit) and the alarms, with an optional email
 * topic. Metric names come from the functions' own observability module.
 */
import { Aws, Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  Alarm,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  LogQueryVisualizationType,
  LogQueryWidget,
  MathExpression,
  Metric,
  TreatMissingData,
  type IMetric,
  type IWidget,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { Operation, Table } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import {
  DENIAL_REASONS,
  METRICS_NAMESPACE,
  OUTCOME_METRICS,
  REASON_DIMENSION,
  SERVICE_DIMENSION,
  type Outcome,
} from '../../lambda/shared/metrics-contract';
import { API } from '../api';
import { FUNCTIONS, FUNCTION_NAMES, type FunctionName, type TableKey } from '../functions';

/** What the monitoring watches. */
export interface MonitoringProps {
  readonly api: HttpApi;
  /** Every function of the registry, by name. */
  readonly functions: Readonly<Record<FunctionName, LambdaFunction>>;
  /** Every table, by its key in the registry. */
  readonly tables: Readonly<Record<TableKey, Table>>;
  /**
   * Address that alarm notifications are emailed to, through an SNS topic.
   * @default - no topic: alarms change state in CloudWatch and notify nobody
   */
  readonly alarmEmail?: string;
  /**
   * What becomes of the alarm topic's KMS key when the stack is deleted (DESTROY schedules its
   * deletion after KMS's 7-day waiting period).
   * @default RemovalPolicy.RETAIN
   */
  readonly alarmKeyRemovalPolicy?: RemovalPolicy;
  /**
   * The period of every graph and alarm.
   * @default Duration.minutes(5)
   */
  readonly period?: Duration;
  /**
   * More graphs, one row at the end of the dashboard (the webhook's).
   * @default - none
   */
  readonly extraWidgets?: IWidget[];
  /**
   * More metrics to alarm on at any non-zero value, by alarm id (the webhook's dead letters).
   * @default - none
   */
  readonly extraAlarms?: Record<string, IMetric>;
}

/** The outcomes of plant requests, one line each on the dashboard. */
const PLANT_OUTCOMES: readonly Outcome[] = [
  'created',
  'unchanged',
  'conflict',
  'invalid',
  'forbidden',
  'read',
  'listed',
  'not-found',
  'deleted',
];

/** A business metric that one function emits (`service` is its registry name). */
export function businessMetric(
  name: string,
  service: FunctionName,
  period: Duration,
  extraDimensions: Record<string, string> = {},
): Metric {
  return new Metric({
    namespace: METRICS_NAMESPACE,
    metricName: name,
    dimensionsMap: { [SERVICE_DIMENSION]: service, ...extraDimensions },
    statistic: 'Sum',
    period,
  });
}

/** The dashboard and the alarms of a Plant Store deployment. */
export class Monitoring extends Construct {
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    const period = props.period ?? Duration.minutes(5);
    const { api, functions, tables } = props;

    // An outcome summed over the functions that may report it (ids unique per widget).
    let expressions = 0;
    const authorizer = API.authorizer.function;
    const handlers = FUNCTION_NAMES.filter((name) => name !== authorizer);
    const acrossFunctions = (outcome: Outcome, names = FUNCTION_NAMES): MathExpression => {
      const index = expressions++;
      const usingMetrics = Object.fromEntries(
        names.map((name, n) => [
          `m${index}_${n}`,
          businessMetric(OUTCOME_METRICS[outcome], name, period),
        ]),
      );
      return new MathExpression({
        expression: `SUM([${Object.keys(usingMetrics).join(',')}])`,
        usingMetrics,
        label: OUTCOME_METRICS[outcome],
        period,
      });
    };
    const graph = (title: string, left: IMetric[], width = 8) =>
      new GraphWidget({ title, left, width, height: 6 });

    const apiRow: IWidget[] = [
      graph('API requests', [api.metricCount({ period, statistic: 'Sum' })]),
      graph('API 4xx and 5xx', [
        api.metricClientError({ period }),
        api.metricServerError({ period }),
      ]),
      graph('API latency p50 and p99 (ms)', [
        api.metricLatency({ period, statistic: 'p50' }),
        api.metricLatency({ period, statistic: 'p99' }),
      ]),
    ];
    const functionRows: IWidget[][] = FUNCTION_NAMES.map((name) => {
      const fn = functions[name];
      return [
        graph(`${name}: invocations, errors, throttles`, [
          fn.metricInvocations({ period }),
          fn.metricErrors({ period }),
          fn.metricThrottles({ period }),
        ]),
        graph(`${name}: duration p99 (ms)`, [fn.metricDuration({ period, statistic: 'p99' })]),
      ];
    });
    // Cold starts from Lambda's own report lines (JSON log format): their count and init time.
    const coldStarts = new LogQueryWidget({
      title: 'Cold starts: count and init duration (ms), by function',
      logGroupNames: FUNCTION_NAMES.map((name) => functions[name].logGroup.logGroupName),
      view: LogQueryVisualizationType.TABLE,
      queryLines: [
        'filter type = "platform.report" and ispresent(record.metrics.initDurationMs)',
        'stats count(*) as coldStarts, avg(record.metrics.initDurationMs) as avgInitMs, pct(record.metrics.initDurationMs, 99) as p99InitMs by @log',
      ],
      width: 24,
      height: 6,
    });
    const tableRow: IWidget[] = (Object.entries(tables) as [TableKey, Table][]).flatMap(
      ([key, table]) => [
        graph(
          `${key} table: consumed capacity`,
          [
            table.metricConsumedReadCapacityUnits({ period }),
            table.metricConsumedWriteCapacityUnits({ period }),
          ],
          6,
        ),
        graph(
          `${key} table: throttled requests`,
          [
            table.metricThrottledRequestsForOperations({
              operations: operationsOn(key),
              period,
            }),
          ],
          6,
        ),
      ],
    );
    const businessRow: IWidget[] = [
      graph(
        'Plant requests by outcome',
        PLANT_OUTCOMES.map((outcome) => acrossFunctions(outcome, handlers)),
      ),
      graph('Authorizer: allowed, denied by reason', [
        businessMetric(OUTCOME_METRICS.allowed, authorizer, period),
        ...DENIAL_REASONS.map((reason) =>
          businessMetric(OUTCOME_METRICS.denied, authorizer, period, {
            [REASON_DIMENSION]: reason,
          }).with({ label: `Denied (${reason})` }),
        ),
      ]),
      graph('Store unavailable and errors', [
        acrossFunctions('unavailable'),
        acrossFunctions('error'),
      ]),
    ];

    this.dashboard = new Dashboard(this, 'Dashboard', {
      widgets: [
        apiRow,
        ...functionRows,
        [coldStarts],
        tableRow,
        businessRow,
        ...(props.extraWidgets ? [props.extraWidgets] : []),
      ],
    });

    const topic = props.alarmEmail
      ? new AlarmTopic(this, 'Alarms', {
          email: props.alarmEmail,
          keyRemovalPolicy: props.alarmKeyRemovalPolicy,
        }).topic
      : undefined;
    this.alarms(topic, {
      ApiServerErrors: api.metricServerError({ period }),
      ...Object.fromEntries(
        FUNCTION_NAMES.flatMap((name) => [
          [`${FUNCTIONS[name].id}Errors`, functions[name].metricErrors({ period })],
          [`${FUNCTIONS[name].id}Throttles`, functions[name].metricThrottles({ period })],
        ]),
      ),
      PlantsTableThrottles: tables.plants.metricThrottledRequestsForOperations({
        operations: operationsOn('plants'),
        period,
      }),
      TokensTableThrottles: tables.tokens.metricThrottledRequestsForOperations({
        operations: operationsOn('tokens'),
        period,
      }),
      // The functions answer 503 (and the authorizer fails) when the store is throttled or
      // unreachable after the SDK's retries; each such request counts one StoreUnavailable.
      StoreUnavailable: acrossFunctions('unavailable'),
      ...props.extraAlarms,
    });
  }

  /** One alarm per metric (any non-zero value in a period), each notifying the topic if any. */
  private alarms(topic: Topic | undefined, metrics: Record<string, IMetric>): void {
    for (const [id, metric] of Object.entries(metrics)) {
      const alarm = new Alarm(this, `${id}Alarm`, {
        metric,
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });
      if (topic) alarm.addAlarmAction(new SnsAction(topic));
    }
  }
}

/** What the alarm topic needs. */
export interface AlarmTopicProps {
  /** Address that alarm notifications are emailed to. */
  readonly email: string;
  /**
   * What becomes of the key when the stack is deleted.
   * @default RemovalPolicy.RETAIN
   */
  readonly keyRemovalPolicy?: RemovalPolicy;
}

/**
 * An SNS topic that CloudWatch alarms can actually publish to: encrypted with a customer-managed
 * KMS key (rotated yearly) whose policy lets `cloudwatch.amazonaws.com` use it for this account's
 * alarms. The AWS-managed `alias/aws/sns` cannot do this: its policy cannot be changed to admit
 * CloudWatch, so every notification would be dropped (docs/deploy-notes.md).
 */
export class AlarmTopic extends Construct {
  readonly topic: Topic;
  readonly key: Key;

  constructor(scope: Construct, id: string, props: AlarmTopicProps) {
    super(scope, id);
    this.key = new Key(this, 'Key', {
      description: 'Plant Store alarm notifications (SNS topic encryption)',
      enableKeyRotation: true,
      pendingWindow: Duration.days(7),
      removalPolicy: props.keyRemovalPolicy ?? RemovalPolicy.RETAIN,
    });
    // The confused-deputy guard: only alarms of this account and region may use the key or
    // publish, never CloudWatch acting for another account.
    const fromOurAlarms = {
      StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID },
      ArnLike: {
        'aws:SourceArn': `arn:${Aws.PARTITION}:cloudwatch:${Aws.REGION}:${Aws.ACCOUNT_ID}:alarm:*`,
      },
    };
    const cloudWatch = new ServicePrincipal('cloudwatch.amazonaws.com');
    this.key.addToResourcePolicy(
      new PolicyStatement({
        sid: 'AllowCloudWatchAlarmsToPublish',
        principals: [cloudWatch],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
        conditions: fromOurAlarms,
      }),
    );
    this.topic = new Topic(this, 'Topic', { enforceSSL: true, masterKey: this.key });
    // enforceSSL writes a topic policy, which replaces SNS's default one: CloudWatch needs its
    // own allow to publish.
    this.topic.addToResourcePolicy(
      new PolicyStatement({
        sid: 'AllowCloudWatchAlarmsToPublish',
        principals: [cloudWatch],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: fromOurAlarms,
      }),
    );
    this.topic.addSubscription(new EmailSubscription(props.email));
  }
}

/** The DynamoDB operations any function may call on a table, for its throttling metric. */
export function operationsOn(table: TableKey): Operation[] {
  const actions = FUNCTION_NAMES.flatMap((name) => FUNCTIONS[name].tables[table] ?? []);
  return [...new Set(actions)].map((action) => action.replace('dynamodb:', '') as Operation);
}
