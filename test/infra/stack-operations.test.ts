/**
 * What operators get from the synthesized template: alarms (API 5xx, function errors and
 * throttles, DynamoDB throttling, the store unavailable), outputs, each function's logs and
 * tracing, and the dashboard.
 */
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { API } from '../../lib/definitions/api';
import { ApplicationLogLevel } from 'aws-cdk-lib/aws-lambda';
import { DENIAL_REASONS, OUTCOME_METRICS } from '../../lambda/observability/metrics-contract';
import {
  FUNCTIONS,
  FUNCTION_NAMES,
  REQUEST_OUTCOMES,
  TABLES_BY_KEY,
} from '../../lib/definitions/functions';
import { PlantStoreStack } from '../../lib/infra/plant-store-stack';
import { VERSION } from '../../lib/definitions/version';
import { appFolder } from '../support/cdk-app';
import { synth } from '../support/stack-synth';

let template: Template;
beforeAll(() => {
  template = synth();
});

describe('alarms and outputs', () => {
  it('alarms on API 5xx, function errors and throttles, and DynamoDB throttling', () => {
    // API 5xx, errors and throttles per function, throttling per table, the store unavailable,
    // the webhook's dead letters, stream failures and deliveries stalled, subscribers failing
    // (the warning) and disabled.
    template.resourceCountIs(
      'AWS::CloudWatch::Alarm',
      1 + 2 * FUNCTION_NAMES.length + Object.keys(TABLES_BY_KEY).length + 1 + 3 + 2,
    );
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: '5xx',
      Namespace: 'AWS/ApiGateway',
    });
    template.resourcePropertiesCountIs(
      'AWS::CloudWatch::Alarm',
      { MetricName: 'Errors', Namespace: 'AWS/Lambda' },
      FUNCTION_NAMES.length,
    );
    template.resourcePropertiesCountIs(
      'AWS::CloudWatch::Alarm',
      { MetricName: 'Throttles', Namespace: 'AWS/Lambda' },
      FUNCTION_NAMES.length,
    );
    template.resourceCountIs('AWS::SNS::Topic', 0);
  });

  it('emails alarms through an encrypted topic when alarmEmail is given', () => {
    const withEmail = synth({ alarmEmail: 'ops@example.com' });
    withEmail.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ops@example.com',
    });
    withEmail.hasResourceProperties('AWS::SNS::Topic', { KmsMasterKeyId: Match.anyValue() });
    withEmail.allResourcesProperties('AWS::CloudWatch::Alarm', {
      AlarmActions: [{ Ref: Match.anyValue() }],
    });
  });

  it('outputs the URL, the table names and the version', () => {
    expect(Object.keys(template.findOutputs('*')).sort()).toEqual([
      'ApiUrl',
      'DeadLetterQueueUrl',
      'DeliveryQueueUrl',
      'PlantsTableName',
      'SubscriptionsTableName',
      'TokensTableName',
      'Version',
    ]);
    template.hasOutput('Version', { Value: VERSION });
  });
});

describe('operations: logs, tracing, dashboard', () => {
  it.each(Object.entries(FUNCTIONS))(
    '%s logs JSON at INFO, names its service, and is not traced by default',
    (name, definition) => {
      const [resource] = Object.values(
        template.findResources('AWS::Lambda::Function', {
          Properties: { MemorySize: definition.memorySize, Environment: Match.anyValue() },
        }),
      ).filter((r) => r.Properties.Environment.Variables.POWERTOOLS_SERVICE_NAME === name);
      expect(resource).toBeDefined();
      expect(resource!.Properties.LoggingConfig).toEqual({
        LogFormat: 'JSON',
        ApplicationLogLevel: 'INFO',
        SystemLogLevel: 'INFO',
        LogGroup: { Ref: expect.any(String) },
      });
      expect(resource!.Properties.TracingConfig).toBeUndefined();
    },
  );

  it('takes the log level and tracing from props, still cdk-nag clean', () => {
    const traced = synth({ applicationLogLevel: ApplicationLogLevel.DEBUG, tracing: true });
    traced.allResourcesProperties('AWS::Lambda::Function', {
      LoggingConfig: Match.objectLike({ LogFormat: 'JSON', ApplicationLogLevel: 'DEBUG' }),
      TracingConfig: { Mode: 'Active' },
    });
  });

  it('refuses a log level that would drop the EMF metric lines', () => {
    expect(
      () =>
        new PlantStoreStack(new App({ outdir: appFolder() }), 'Warn', {
          applicationLogLevel: ApplicationLogLevel.WARN,
        }),
    ).toThrow('applicationLogLevel must be TRACE, DEBUG or INFO');
  });

  /** The dashboard body, with CloudFormation references replaced by a placeholder. */
  function dashboard(): { widgets: { properties: Record<string, unknown> }[] } {
    const [body] = Object.values(template.findResources('AWS::CloudWatch::Dashboard')).map(
      (r) => r.Properties.DashboardBody['Fn::Join'][1] as unknown[],
    );
    return JSON.parse(body!.map((part) => (typeof part === 'string' ? part : 'REF')).join(''));
  }
  /** Every metric of a widget as `namespace metric dim=value… [stat]` strings. */
  function metricsOf(widget: { properties: Record<string, unknown> }): string[] {
    const rows = (widget.properties.metrics ?? []) as unknown[][];
    return rows.flatMap((row) => {
      const options = (
        typeof row[row.length - 1] === 'object' ? row[row.length - 1] : {}
      ) as Record<string, unknown>;
      const parts = row.filter((part) => typeof part === 'string') as string[];
      if (parts.length < 2) return [];
      const [namespace, metric, ...dims] = parts;
      const pairs = [];
      for (let i = 0; i + 1 < dims.length; i += 2) pairs.push(`${dims[i]}=${dims[i + 1]}`);
      return [[namespace, metric, ...pairs, `[${String(options.stat ?? '')}]`].join(' ')];
    });
  }

  it('has one dashboard with the API, per-function, table and business metrics', () => {
    template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
    const widgets = dashboard().widgets;
    const all = widgets.flatMap(metricsOf);
    const has = (pattern: RegExp) =>
      expect(all.find((m) => pattern.test(m)) ?? all.join('\n')).toMatch(pattern);
    has(/^AWS\/ApiGateway Count ApiId=REF \[Sum\]$/);
    has(/^AWS\/ApiGateway 4xx ApiId=REF/);
    has(/^AWS\/ApiGateway 5xx ApiId=REF/);
    has(/^AWS\/ApiGateway Latency ApiId=REF \[p50\]$/);
    has(/^AWS\/ApiGateway Latency ApiId=REF \[p99\]$/);
    for (const metric of ['Invocations', 'Errors', 'Throttles']) {
      expect(all.filter((m) => m.startsWith(`AWS/Lambda ${metric} FunctionName=`))).toHaveLength(
        FUNCTION_NAMES.length,
      );
    }
    expect(
      all.filter((m) => /^AWS\/Lambda Duration FunctionName=REF \[p99\]$/.test(m)),
    ).toHaveLength(FUNCTION_NAMES.length);
    has(/^AWS\/DynamoDB ConsumedReadCapacityUnits TableName=REF/);
    has(/^AWS\/DynamoDB ConsumedWriteCapacityUnits TableName=REF/);
    has(/^AWS\/DynamoDB ThrottledRequests Operation=PutItem TableName=REF/);
    const handlers = FUNCTION_NAMES.filter((name) => name !== API.authorizer.function);
    for (const name of handlers) {
      for (const metric of REQUEST_OUTCOMES.map((outcome) => OUTCOME_METRICS[outcome])) {
        has(new RegExp(`^PlantStore ${metric} service=${name} \\[Sum\\]$`));
      }
    }
    for (const name of FUNCTION_NAMES) {
      has(new RegExp(`^PlantStore StoreUnavailable service=${name} \\[Sum\\]$`));
      has(new RegExp(`^PlantStore Errors service=${name} \\[Sum\\]$`));
    }
    has(/^PlantStore Allowed service=authorizer \[Sum\]$/);
    for (const reason of DENIAL_REASONS) {
      has(new RegExp(`^PlantStore Denied reason=${reason} service=authorizer \\[Sum\\]$`));
    }
    const query = widgets.find((w) => w.properties.view === 'table')?.properties.query;
    expect(query).toContain('platform.report');
    expect(query).toContain('record.metrics.initDurationMs');
    expect(String(query).match(/SOURCE 'REF'/g)).toHaveLength(FUNCTION_NAMES.length);
  });

  it('alarms when any function reports the store unavailable', () => {
    const [alarm] = Object.values(
      template.findResources('AWS::CloudWatch::Alarm', {
        Properties: {
          Metrics: Match.arrayWith([Match.objectLike({ Expression: Match.anyValue() })]),
        },
      }),
    ).filter((r) => JSON.stringify(r).includes('StoreUnavailable'));
    expect(alarm).toBeDefined();
    const metrics = alarm!.Properties.Metrics as {
      Expression?: string;
      MetricStat?: { Metric: { MetricName: string; Namespace: string; Dimensions: unknown[] } };
    }[];
    expect(metrics.find((m) => m.Expression)?.Expression).toMatch(/^SUM\(\[/);
    expect(
      metrics
        .filter((m) => m.MetricStat)
        .map((m) => [m.MetricStat!.Metric.Namespace, m.MetricStat!.Metric.MetricName]),
    ).toEqual(FUNCTION_NAMES.map(() => ['PlantStore', 'StoreUnavailable']));
    expect(alarm!.Properties).toMatchObject({
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
    });
  });
});
