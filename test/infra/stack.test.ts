/**
 * The synthesized template: the API equals the shared definition (so `npm start` and AWS cannot
 * drift), least-privilege IAM, table settings, alarms and outputs, cdk-nag clean, one snapshot.
 */
import { App, Duration, Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { API } from '../../lib/definitions/api';
import { buildFunctions } from '../../lib/definitions/build';
import { ApplicationLogLevel } from 'aws-cdk-lib/aws-lambda';
import { DENIAL_REASONS, OUTCOME_METRICS } from '../../lambda/observability/metrics-contract';
import { PLANTS_TABLE, TOKENS_TABLE } from '../../lambda/aws/tables';
import {
  FUNCTIONS,
  FUNCTION_NAMES,
  REQUEST_OUTCOMES,
  TABLES_BY_KEY,
  tableEnvironment,
  type FunctionName,
} from '../../lib/definitions/functions';
import { PlantStoreStack, type PlantStoreStackProps } from '../../lib/infra/plant-store-stack';
import { functionStatements, keyPolicy, type ResourceArns } from '../../lib/definitions/policies';
import { VERSION } from '../../lib/definitions/version';

/** The feature flags `cdk synth` reads from cdk.json, so that the template tested is the one deployed. */
const CONTEXT = JSON.parse(readFileSync(join(__dirname, '../../cdk.json'), 'utf8')).context;

const temporary: string[] = [];
const tempDir = (prefix: string) => {
  temporary.push(mkdtempSync(join(tmpdir(), prefix)));
  return temporary.at(-1)!;
};
afterAll(() => {
  for (const dir of temporary) rmSync(dir, { recursive: true, force: true });
});

let outdir: string;
/**
 * The app with `props`, cdk-nag included. `bundle`: the functions bundled as `cdk synth` does
 * (seconds each on a busy machine); the default synth in beforeAll bundles, and the assets and
 * bundle tests read it. A synth with other props checks the resources those props change, so it
 * skips bundling (context `aws:cdk:bundling-stacks: []`, as deploy.test.ts synthesizes).
 */
function synth(props: PlantStoreStackProps = {}, { bundle = false } = {}) {
  outdir = tempDir('plant-store-cdk-');
  const context = bundle ? CONTEXT : { ...CONTEXT, 'aws:cdk:bundling-stacks': [] };
  const app = new App({ outdir, context });
  // Bundling writes nothing on stderr: not CDK's "Bundling asset …" notes (withoutBundlingNote).
  const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
  try {
    const stack = new PlantStoreStack(app, 'PlantStore', props);
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    app.synth();
    expect(stderr.mock.calls).toEqual([]);
    return Template.fromStack(stack);
  } finally {
    stderr.mockRestore();
  }
}

let template: Template;
let defaultOutdir: string;
beforeAll(() => {
  template = synth({}, { bundle: true });
  defaultOutdir = outdir;
});

function logicalIdOf(type: string, props: Record<string, unknown>): string {
  const [id] = Object.keys(template.findResources(type, { Properties: Match.objectLike(props) }));
  if (!id) throw new Error(`no ${type} with ${JSON.stringify(props)}`);
  return id;
}

describe('the HTTP API is the shared definition', () => {
  it('has exactly the routes of lib/definitions/api.ts, each behind the authorizer', () => {
    const routes = Object.values(template.findResources('AWS::ApiGatewayV2::Route')).map(
      (route) => route.Properties,
    );
    expect(routes.map((route) => route.RouteKey).sort()).toEqual(
      API.routes.map((route) => `${route.method} ${route.path}`).sort(),
    );
    const authorizerId = logicalIdOf('AWS::ApiGatewayV2::Authorizer', {});
    for (const route of routes) {
      expect(route).toMatchObject({
        AuthorizationType: 'CUSTOM',
        AuthorizerId: { Ref: authorizerId },
      });
    }
  });

  it('sends each route to the function lib/definitions/api.ts names', () => {
    const integrations = template.findResources('AWS::ApiGatewayV2::Integration');
    const targets = Object.values(template.findResources('AWS::ApiGatewayV2::Route')).map(
      (route) => {
        const target = route.Properties.Target['Fn::Join'][1][1].Ref as string;
        const uri = integrations[target]!.Properties.IntegrationUri['Fn::GetAtt'][0] as string;
        return `${route.Properties.RouteKey} -> ${uri.replace(/Function[0-9A-F]{8}$/, '')}`;
      },
    );
    expect(targets.sort()).toEqual(
      API.routes
        .map((route) => `${route.method} ${route.path} -> ${FUNCTIONS[route.function].id}`)
        .sort(),
    );
  });

  it('uses a payload 2.0, simple-response Lambda authorizer on the Authorization header', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Authorizer', {
      AuthorizerType: 'REQUEST',
      AuthorizerPayloadFormatVersion: '2.0',
      EnableSimpleResponses: true,
      IdentitySource: [API.authorizer.identitySource],
      AuthorizerResultTtlInSeconds: API.authorizer.defaultCacheTtlSeconds,
    });
    template.hasResourceProperties('AWS::ApiGatewayV2::Integration', {
      IntegrationType: 'AWS_PROXY',
      PayloadFormatVersion: '2.0',
    });
  });

  it('configures CORS from the definition, allowing every method a route serves', () => {
    expect([...API.cors.allowMethods].sort()).toEqual(
      [...new Set(API.routes.map((route) => route.method))].sort(),
    );
    template.hasResourceProperties('AWS::ApiGatewayV2::Api', {
      ProtocolType: 'HTTP',
      CorsConfiguration: {
        AllowOrigins: [...API.cors.defaultAllowOrigins],
        AllowHeaders: [...API.cors.allowHeaders],
        AllowMethods: [...API.cors.allowMethods],
        MaxAge: API.cors.maxAgeSeconds,
      },
    });
  });

  it('throttles the $default stage and writes JSON access logs to a retained log group', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: 50, ThrottlingBurstLimit: 100 },
      AccessLogSettings: {
        DestinationArn: Match.anyValue(),
        Format: Match.stringLikeRegexp('"requestId":"\\$context.requestId"'),
      },
    });
    // One per function, kept a month; the access logs (the audit trail) a year, and retained.
    template.resourcePropertiesCountIs(
      'AWS::Logs::LogGroup',
      { RetentionInDays: 30 },
      FUNCTION_NAMES.length,
    );
    template.hasResource('AWS::Logs::LogGroup', {
      Properties: { RetentionInDays: 365 },
      DeletionPolicy: 'Retain',
    });
  });

  it('takes the cache TTL, origins and throttling from props', () => {
    const custom = synth({
      authCacheTtl: Duration.seconds(0),
      corsAllowOrigins: ['https://plants.example'],
      throttlingRateLimit: 5,
      throttlingBurstLimit: 7,
    });
    custom.hasResourceProperties('AWS::ApiGatewayV2::Authorizer', {
      AuthorizerResultTtlInSeconds: 0,
    });
    custom.hasResourceProperties('AWS::ApiGatewayV2::Api', {
      CorsConfiguration: Match.objectLike({ AllowOrigins: ['https://plants.example'] }),
    });
    custom.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      DefaultRouteSettings: { ThrottlingRateLimit: 5, ThrottlingBurstLimit: 7 },
    });
    expect(() => synth({ authCacheTtl: Duration.seconds(3601) })).toThrow(
      'authCacheTtl must be at most 3600 seconds, got 3601',
    );
  });
});

describe('functions', () => {
  it.each(Object.entries(FUNCTIONS))(
    '%s runs Node 24 on arm64 with its settings',
    (name, definition) => {
      template.hasResourceProperties('AWS::Lambda::Function', {
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        MemorySize: definition.memorySize,
        Timeout: definition.timeoutSeconds,
        Environment: {
          Variables: tableEnvironment(name as FunctionName, () => Match.anyValue() as never),
        },
      });
    },
  );

  it('deploys byte for byte the bundles that npm start and npm run bench build', async () => {
    const built = await buildFunctions(tempDir('plant-store-bundles-'));
    for (const fn of built) {
      const { id } = FUNCTIONS[fn.name];
      const [resource] = Object.entries(template.findResources('AWS::Lambda::Function')).filter(
        ([key]) => key.startsWith(id),
      );
      const key = resource![1].Properties.Code.S3Key as string;
      const asset = join(defaultOutdir, `asset.${key.replace(/\.zip$/, '')}`, 'index.mjs');
      expect(readFileSync(asset).equals(readFileSync(fn.file))).toBe(true);
    }
  }, 120_000); // seven esbuild builds: over 30 s on a loaded machine

  it("keeps the tables' logical ids, since a replaced table loses its data", () => {
    expect(Object.keys(template.findResources('AWS::DynamoDB::Table'))).toEqual(
      expect.arrayContaining(['PlantsTable0ED39346', 'TokensTable6C9B5BC6']),
    );
    expect(
      logicalIdOf('AWS::DynamoDB::Table', {
        KeySchema: [{ AttributeName: PLANTS_TABLE.partitionKey.name, KeyType: 'HASH' }],
      }),
    ).toBe('PlantsTable0ED39346');
    expect(
      logicalIdOf('AWS::DynamoDB::Table', {
        KeySchema: [{ AttributeName: TOKENS_TABLE.partitionKey.name, KeyType: 'HASH' }],
      }),
    ).toBe('TokensTable6C9B5BC6');
  });

  it('grants each function exactly what the registry gives it, besides what Lambda itself uses on its behalf', () => {
    const arnOf = (type: string, prefix: string) => {
      const ids = Object.keys(template.findResources(type)).filter((id) => id.startsWith(prefix));
      if (ids.length !== 1) throw new Error(`no single ${type} ${prefix}…: ${ids.join(', ')}`);
      return JSON.stringify({ 'Fn::GetAtt': [ids[0], 'Arn'] });
    };
    const queueIds = {
      deliveries: 'WebhooksDeliveryQueue',
      deadLetters: 'WebhooksDeadLetterQueue',
      streamFailures: 'WebhooksStreamFailureQueue',
    } as const;
    const arns: ResourceArns = {
      table: (key) =>
        JSON.stringify({
          'Fn::GetAtt': [
            logicalIdOf('AWS::DynamoDB::Table', {
              KeySchema: [{ AttributeName: TABLES_BY_KEY[key].partitionKey.name, KeyType: 'HASH' }],
            }),
            'Arn',
          ],
        }),
      queue: (key) => arnOf('AWS::SQS::Queue', queueIds[key]),
      role: (name) => arnOf('AWS::IAM::Role', `${FUNCTIONS[name].id}Role`),
      accountRoot: '',
      deployer: '',
    };
    const pairs = (statements: readonly { Action: unknown; Resource: unknown }[]) =>
      statements.flatMap((s) =>
        [s.Action]
          .flat()
          .flatMap((action) =>
            [s.Resource]
              .flat()
              .map(
                (resource) =>
                  `${String(action)} ${typeof resource === 'string' && !resource.startsWith('{') ? resource : JSON.stringify(typeof resource === 'string' ? JSON.parse(resource) : resource)}`,
              ),
          ),
      );
    for (const name of FUNCTION_NAMES) {
      const [, policy] = Object.entries(template.findResources('AWS::IAM::Policy')).find(([id]) =>
        id.startsWith(`${FUNCTIONS[name].id}RoleDefaultPolicy`),
      )!;
      const granted = new Set(pairs(policy.Properties.PolicyDocument.Statement));
      const registry = pairs(functionStatements(name, arns));
      expect([...registry].filter((pair) => !granted.has(pair))).toEqual([]);
      // Everything else is Lambda's own work for the function: its logs, and its event source
      // mapping's reads (the stream's, or the queue's) and on-failure sends.
      const logs = arnOf('AWS::Logs::LogGroup', `${FUNCTIONS[name].id}Logs`);
      const lambdasOwn = [...granted].filter((pair) => !registry.includes(pair));
      for (const pair of lambdasOwn) {
        expect(pair).toMatch(
          new RegExp(
            `^(logs:(CreateLogStream|PutLogEvents) ${escape(logs)}|dynamodb:(DescribeStream|GetRecords|GetShardIterator|ListStreams) .*|sqs:(ReceiveMessage|DeleteMessage|ChangeMessageVisibility|GetQueueAttributes|GetQueueUrl) ${escape(arns.queue('deliveries'))}|sqs:(SendMessage|GetQueueAttributes|GetQueueUrl) ${escape(arns.queue('streamFailures'))})$`,
          ),
        );
        if (pair.startsWith('sqs:') || pair.startsWith('dynamodb:')) {
          expect(FUNCTIONS[name].trigger).toBeDefined();
        }
      }
    }
    // The deliverer's batch: what the receiver gate keeps on the subscriber's item is written.
    expect(pairs(functionStatements('deliver', arns))).toEqual(
      expect.arrayContaining([
        `dynamodb:GetItem ${arns.table('subscriptions')}`,
        `dynamodb:UpdateItem ${arns.table('subscriptions')}`,
      ]),
    );
    expect(JSON.stringify(template.findResources('AWS::IAM::Role'))).not.toContain(
      'ManagedPolicyArns',
    );
  });

  it("deploys the secrets key's policy from the registry: the account administers and seals, the functions given the key use it, under a subscriber context", () => {
    const [key] = Object.values(template.findResources('AWS::KMS::Key'));
    const normal = (statement: Record<string, unknown>) =>
      JSON.parse(
        JSON.stringify({
          ...statement,
          Action: [statement.Action].flat(),
          Resource: [statement.Resource].flat(),
        }),
        (_, value: unknown) =>
          typeof value === 'string' && value.startsWith('{') ? JSON.parse(value) : value,
      );
    const roleArn = (name: FunctionName) =>
      JSON.stringify({
        'Fn::GetAtt': [
          Object.keys(template.findResources('AWS::IAM::Role')).find((id) =>
            id.startsWith(`${FUNCTIONS[name].id}Role`),
          ),
          'Arn',
        ],
      });
    const expected = keyPolicy('secrets', {
      table: () => '',
      queue: () => '',
      role: roleArn,
      accountRoot: JSON.stringify({
        'Fn::Join': [
          '',
          ['arn:', { Ref: 'AWS::Partition' }, ':iam::', { Ref: 'AWS::AccountId' }, ':root'],
        ],
      }),
      // The bootstrap's execution role, as the template writes it.
      deployer: JSON.stringify(deployerOf(key!.Properties.KeyPolicy.Statement)),
    });
    expect(key!.Properties.KeyPolicy.Statement.map(normal)).toEqual(
      expected.Statement.map((s) => normal(s as unknown as Record<string, unknown>)),
    );
  });
});

/** The deployer ARN the template's key policy names (the bootstrap's, with its own intrinsics). */
function deployerOf(
  statements: { Sid?: string; Condition?: Record<string, Record<string, unknown>> }[],
) {
  return statements.find((s) => s.Sid === 'OnlyDeploymentsChangeThePolicy')?.Condition?.ArnEquals?.[
    'aws:PrincipalArn'
  ];
}

/** `text` matched literally in a regular expression. */
function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

describe('tables', () => {
  it.each([
    ['id', 'N', undefined],
    ['tokenHash', 'S', 'expiresAt'],
    ['subscriberId', 'S', undefined],
  ])('keyed by %s: on-demand, PITR, deletion protection, retained', (key, type, ttl) => {
    template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: {
        KeySchema: [{ AttributeName: key, KeyType: 'HASH' }],
        AttributeDefinitions: [{ AttributeName: key, AttributeType: type }],
        BillingMode: 'PAY_PER_REQUEST',
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        DeletionProtectionEnabled: true,
        TimeToLiveSpecification: ttl ? { AttributeName: ttl, Enabled: true } : Match.absent(),
      },
    });
  });
});

describe('the newPlant webhook in the stack', () => {
  it('keeps the plants table logical id and gives it a NEW_IMAGE stream', () => {
    const resources = template.toJSON().Resources as Record<string, { Properties: object }>;
    expect(resources.PlantsTable0ED39346?.Properties).toMatchObject({
      StreamSpecification: { StreamViewType: 'NEW_IMAGE' },
    });
  });

  it('invokes the fan-out from the plants stream, inserts and modifies (never a REMOVE)', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': ['PlantsTable0ED39346', 'StreamArn'] },
      FunctionName: { Ref: Match.stringLikeRegexp('^FanOut') },
      FilterCriteria: { Filters: [{ Pattern: '{"eventName":["INSERT","MODIFY"]}' }] },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BisectBatchOnFunctionError: true,
    });
  });
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

it('is cdk-nag clean (AwsSolutions), with and without the alarm topic', () => {
  // synth() throws on any unacknowledged finding; it ran for the default props in beforeAll.
  expect(() => synth({ alarmEmail: 'ops@example.com' })).not.toThrow();
});

describe('reserved concurrency (blast radius)', () => {
  const functionsOf = (t: Template) =>
    Object.entries(t.findResources('AWS::Lambda::Function')).filter(([, r]) => r.Properties.Role);

  it('is off by default: no function reserves any', () => {
    const reserved = functionsOf(template).map(
      ([, r]) => r.Properties.ReservedConcurrentExecutions,
    );
    expect(reserved.length).toBeGreaterThanOrEqual(Object.keys(FUNCTIONS).length);
    expect(reserved.every((value) => value === undefined)).toBe(true);
  });

  it('reserves exactly what is asked, per function, and nothing for the others', () => {
    const names = Object.keys(FUNCTIONS) as FunctionName[];
    const asked = Object.fromEntries(names.slice(1).map((name, i) => [name, 5 + i]));
    const custom = synth({ reservedConcurrency: asked });
    for (const name of names) {
      const [[, resource] = []] = functionsOf(custom).filter(([key]) =>
        key.startsWith(FUNCTIONS[name].id),
      );
      expect([name, resource?.Properties.ReservedConcurrentExecutions]).toEqual([
        name,
        asked[name],
      ]);
    }
  });

  it.each([0, -1, 1.5, NaN])('rejects %p', (value) => {
    expect(() => synth({ reservedConcurrency: { 'create-plant': value } })).toThrow(
      `reservedConcurrency of create-plant must be a positive integer, got ${value}`,
    );
  });
});

it('matches the snapshot, asset hashes aside', () => {
  const json = JSON.stringify(template.toJSON()).replace(/[0-9a-f]{64}(\.zip)?/g, 'ASSET$1');
  expect(JSON.parse(json)).toMatchSnapshot();
});

it('sets the local endpoints and the loopback allowance only for a sam-local synth', () => {
  const deployed = JSON.stringify(template.toJSON());
  for (const variable of [
    'AWS_ENDPOINT_URL_DYNAMODB',
    'AWS_ENDPOINT_URL_SQS',
    'WEBHOOK_ALLOW_LOOPBACK',
  ]) {
    expect(deployed).not.toContain(variable);
  }
  const local = synth({ dynamoDbEndpoint: 'http://host.docker.internal:8000' });
  local.allResourcesProperties('AWS::Lambda::Function', {
    Environment: {
      Variables: Match.objectLike({
        AWS_ENDPOINT_URL_DYNAMODB: 'http://host.docker.internal:8000',
      }),
    },
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
        new PlantStoreStack(new App({ outdir: tempDir('plant-store-cdk-') }), 'Warn', {
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
