/**
 * What an operator watches: one CloudWatch dashboard (the API, each function, the tables, the
 * business metrics the functions emit) and the alarms, with an optional email topic. Everything
 * watched comes through the props; metric names come from the functions' metric contract.
 */
import { Duration, Stack, type RemovalPolicy } from 'aws-cdk-lib';
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
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import {
  DENIAL_REASONS,
  METRICS_NAMESPACE,
  OUTCOME_METRICS,
  REASON_DIMENSION,
  SERVICE_DIMENSION,
  type Outcome,
} from '../../../lambda/observability/metrics-contract';
import { REQUEST_OUTCOMES } from '../../definitions/functions';
import { AlarmTopic } from './alarm-topic';

/** A watched table and the DynamoDB operations called on it (its throttling metric names them). */
export interface WatchedTable {
  readonly table: Table;
  readonly operations: readonly Operation[];
  /**
   * Its global secondary indexes: each gets a graph of its write throttling (an index that
   * cannot keep up throttles the table's writes) and of its backfill after it is added.
   * @default - none
   */
  readonly indexes?: readonly string[];
}

/** What the monitoring watches. */
export interface MonitoringProps {
  readonly api: HttpApi;
  /** The functions, by the service name their metrics carry. */
  readonly functions: Readonly<Record<string, LambdaFunction>>;
  /** Which of `functions` is the authorizer (allowed and denied); the others answer plants. */
  readonly authorizer: string;
  /** The tables, by key. */
  readonly tables: Readonly<Record<string, WatchedTable>>;
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
   * More alarms, by alarm id: a metric alarms at any non-zero value (the webhook's dead
   * letters), a `ThresholdAlarm` at its threshold (the stream's iterator age).
   * @default - none
   */
  readonly extraAlarms?: Readonly<Record<string, IMetric | ThresholdAlarm>>;
}

/** An alarm at `threshold` or more, with a description that says what it means. */
export interface ThresholdAlarm {
  readonly metric: IMetric;
  readonly threshold: number;
  readonly description: string;
}

/** A business metric that one function emits (`service` is its registry name). */
export function businessMetric(
  name: string,
  service: string,
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

const graph = (title: string, left: IMetric[], width = 8) =>
  new GraphWidget({ title, left, width, height: 6 });

/**
 * The dashboard (`Dashboard`) and the alarms: `ApiServerErrors`, `StoreUnavailable`,
 * `Functions/<name>/Errors|Throttles`, `Tables/<key>/Throttles`, each notifying the topic
 * (`Alarms`) if there is one. Each alarm is named `<stack name>-<that path>`, the runbook's
 * heading (docs/runbook.md), so that the name an operator is mailed leads to its entry.
 */
export class Monitoring extends Construct {
  readonly dashboard: Dashboard;
  private readonly period: Duration;
  private readonly names: readonly string[];
  /** Math expressions made so far: their metric ids must be unique per widget. */
  private expressions = 0;

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    this.period = props.period ?? Duration.minutes(5);
    this.names = Object.keys(props.functions);
    if (!this.names.includes(props.authorizer)) {
      throw new Error(`authorizer must name one of the functions, got ${props.authorizer}`);
    }
    // Named after the stack: a stage's deploy policy reaches its own dashboard by this name.
    this.dashboard = new Dashboard(this, 'Dashboard', {
      dashboardName: Stack.of(this).stackName,
      widgets: this.widgets(props),
    });

    const topic = props.alarmEmail
      ? new AlarmTopic(this, 'Alarms', {
          email: props.alarmEmail,
          keyRemovalPolicy: props.alarmKeyRemovalPolicy,
        }).topic
      : undefined;
    const period = this.period;
    const alarm = (scope: Construct, id: string, watched: IMetric | ThresholdAlarm) => {
      const { metric, threshold, description } =
        'threshold' in watched
          ? watched
          : { metric: watched, threshold: 1, description: undefined };
      const path = [...scope.node.scopes.slice(this.node.scopes.length).map((s) => s.node.id), id];
      const created = new Alarm(scope, id, {
        alarmName: `${Stack.of(this).stackName}-${path.join('/')}`,
        metric,
        threshold,
        alarmDescription: description,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });
      if (topic) created.addAlarmAction(new SnsAction(topic));
    };
    alarm(this, 'ApiServerErrors', props.api.metricServerError({ period }));
    const functions = new Construct(this, 'Functions');
    for (const [name, fn] of Object.entries(props.functions)) {
      const scope = new Construct(functions, name);
      alarm(scope, 'Errors', fn.metricErrors({ period }));
      alarm(scope, 'Throttles', fn.metricThrottles({ period }));
    }
    const tables = new Construct(this, 'Tables');
    for (const [key, watched] of Object.entries(props.tables)) {
      alarm(new Construct(tables, key), 'Throttles', throttles(watched, period));
    }
    // The functions answer 503 (and the authorizer fails) when the store is throttled or
    // unreachable after the SDK's retries; each such request counts one StoreUnavailable.
    alarm(this, 'StoreUnavailable', this.acrossFunctions('unavailable'));
    for (const [alarmId, metric] of Object.entries(props.extraAlarms ?? {})) {
      alarm(this, alarmId, metric);
    }
  }

  /** The rows: API, one per function, cold starts, tables, business metrics. */
  private widgets(props: MonitoringProps): IWidget[][] {
    const { api, functions, authorizer } = props;
    const period = this.period;
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
    const functionRows: IWidget[][] = Object.entries(functions).map(([name, fn]) => [
      graph(`${name}: invocations, errors, throttles`, [
        fn.metricInvocations({ period }),
        fn.metricErrors({ period }),
        fn.metricThrottles({ period }),
      ]),
      graph(`${name}: duration p99 (ms)`, [fn.metricDuration({ period, statistic: 'p99' })]),
    ]);
    // Cold starts from Lambda's own report lines (JSON log format): their count and init time.
    const coldStarts = new LogQueryWidget({
      title: 'Cold starts: count and init duration (ms), by function',
      logGroupNames: Object.values(functions).map((fn) => fn.logGroup.logGroupName),
      view: LogQueryVisualizationType.TABLE,
      queryLines: [
        'filter type = "platform.report" and ispresent(record.metrics.initDurationMs)',
        'stats count(*) as coldStarts, avg(record.metrics.initDurationMs) as avgInitMs, pct(record.metrics.initDurationMs, 99) as p99InitMs by @log',
      ],
      width: 24,
      height: 6,
    });
    const tableRow: IWidget[] = Object.entries(props.tables).flatMap(([key, watched]) => [
      graph(
        `${key} table: consumed capacity`,
        [
          watched.table.metricConsumedReadCapacityUnits({ period }),
          watched.table.metricConsumedWriteCapacityUnits({ period }),
        ],
        6,
      ),
      graph(`${key} table: throttled requests`, [throttles(watched, period)], 6),
      ...(watched.indexes ?? []).map((index) => {
        const dimensionsMap = {
          TableName: watched.table.tableName,
          GlobalSecondaryIndexName: index,
        };
        return graph(
          `${key} index ${index}: write throttle events, backfill progress (%)`,
          [
            watched.table.metric('WriteThrottleEvents', {
              dimensionsMap,
              period,
              statistic: 'Sum',
            }),
            watched.table.metric('OnlineIndexPercentageProgress', {
              dimensionsMap,
              period,
              statistic: 'Maximum',
            }),
          ],
          6,
        );
      }),
    ]);
    const handlers = this.names.filter((name) => name !== authorizer);
    const businessRow: IWidget[] = [
      graph(
        'Plant requests by outcome',
        REQUEST_OUTCOMES.map((outcome) => this.acrossFunctions(outcome, handlers)),
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
        this.acrossFunctions('unavailable'),
        this.acrossFunctions('error'),
      ]),
    ];
    const extraRows = props.extraWidgets ? [props.extraWidgets] : [];
    return [apiRow, ...functionRows, [coldStarts], tableRow, businessRow, ...extraRows];
  }

  /** An outcome summed over the functions that may report it. */
  private acrossFunctions(outcome: Outcome, names = this.names): MathExpression {
    const index = this.expressions++;
    const usingMetrics = Object.fromEntries(
      names.map((name, n) => [
        `m${index}_${n}`,
        businessMetric(OUTCOME_METRICS[outcome], name, this.period),
      ]),
    );
    return new MathExpression({
      expression: `SUM([${Object.keys(usingMetrics).join(',')}])`,
      usingMetrics,
      label: OUTCOME_METRICS[outcome],
      period: this.period,
    });
  }
}

/** A table's throttled requests over the operations called on it. */
function throttles({ table, operations }: WatchedTable, period: Duration): IMetric {
  return table.metricThrottledRequestsForOperations({ operations: [...operations], period });
}
