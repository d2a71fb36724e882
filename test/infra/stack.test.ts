/**
 * The synthesized template's resources: the API equals the shared definition (so `npm start` and
 * AWS cannot drift), each function's settings and the very bundles `npm start` builds, the tables
 * (their logical ids kept), the webhook's stream, reserved concurrency; cdk-nag clean, one
 * snapshot. Access (IAM, the key policy): stack-access.test.ts; alarms, logs and the dashboard:
 * stack-operations.test.ts.
 */
import { Duration } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { API } from '../../lib/definitions/api';
import { buildFunctions } from '../../lib/definitions/build';
import { PROJECT_ROOT } from '../../lib/definitions/bundling';
import { START_WRAPPER } from '../../lib/definitions/lambda-node';
import { PLANTS_BY_TAG_INDEX, PLANTS_TABLE, TOKENS_TABLE } from '../../lambda/aws/tables';
import {
  FUNCTIONS,
  FUNCTION_NAMES,
  tableEnvironment,
  type FunctionName,
} from '../../lib/definitions/functions';
import { appFolder } from '../support/cdk-app';
import { logicalIdOf, synth, synthStack } from '../support/stack-synth';

let template: Template;
let defaultOutdir: string;
beforeAll(() => {
  ({ template, outdir: defaultOutdir } = synthStack({}, { bundle: true }));
});

describe('the HTTP API is the shared definition', () => {
  it('has exactly the routes of lib/definitions/api.ts, each behind the authorizer', () => {
    const routes = Object.values(template.findResources('AWS::ApiGatewayV2::Route')).map(
      (route) => route.Properties,
    );
    expect(routes.map((route) => route.RouteKey).sort()).toEqual(
      API.routes.map((route) => `${route.method} ${route.path}`).sort(),
    );
    const authorizerId = logicalIdOf(template, 'AWS::ApiGatewayV2::Authorizer', {});
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

  /** The registry function with construct id `id`: its template resource and its asset's folder. */
  function deployed(id: string) {
    const [[, resource]] = Object.entries(template.findResources('AWS::Lambda::Function')).filter(
      ([key]) => key.startsWith(id),
    ) as [
      [string, { Properties: { Code: { S3Key: string }; Environment: { Variables: object } } }],
    ];
    const key = resource.Properties.Code.S3Key;
    return { resource, asset: join(defaultOutdir, `asset.${key.replace(/\.zip$/, '')}`) };
  }

  it('deploys byte for byte the bundles that npm start and npm run bench build', async () => {
    const built = await buildFunctions(appFolder('plant-store-bundles-'));
    for (const fn of built) {
      const { asset } = deployed(FUNCTIONS[fn.name].id);
      expect(readFileSync(join(asset, 'index.mjs')).equals(readFileSync(fn.file))).toBe(true);
    }
  }, 300_000); // seven esbuild builds: minutes beside CPU burners

  it('ships the start wrapper beside every bundle, executable, and has Lambda start Node through it', () => {
    const source = readFileSync(join(PROJECT_ROOT, START_WRAPPER.source));
    for (const { id } of Object.values(FUNCTIONS)) {
      const { resource, asset } = deployed(id);
      expect(resource.Properties.Environment.Variables).toMatchObject({
        AWS_LAMBDA_EXEC_WRAPPER: START_WRAPPER.path,
      });
      const wrapper = join(asset, START_WRAPPER.file);
      expect(readFileSync(wrapper).equals(source)).toBe(true);
      // The zip keeps each file's mode (cdk-assets), and Lambda runs the wrapper only if it may.
      expect(statSync(wrapper).mode & 0o755).toBe(0o755);
      expect(START_WRAPPER.path).toBe(`/var/task/${START_WRAPPER.file}`);
    }
  });

  it('leaves the start wrapper out, with a warning, when synthesized on Windows', () => {
    const platform = Object.getOwnPropertyDescriptor(process, 'platform')!;
    Object.defineProperty(process, 'platform', { ...platform, value: 'win32' });
    let synthesized: ReturnType<typeof synthStack>;
    try {
      synthesized = synthStack();
    } finally {
      Object.defineProperty(process, 'platform', platform);
    }
    const functions = Object.values(
      synthesized.template.findResources('AWS::Lambda::Function'),
    ).filter((fn) => fn.Properties.Environment?.Variables?.POWERTOOLS_SERVICE_NAME);
    expect(functions).toHaveLength(Object.keys(FUNCTIONS).length);
    for (const fn of functions) {
      expect(fn.Properties.Environment.Variables).not.toHaveProperty('AWS_LAMBDA_EXEC_WRAPPER');
    }
    const warnings = Annotations.fromStack(synthesized.stack).findWarning(
      '*',
      Match.stringLikeRegexp('start wrapper could not be made executable'),
    );
    expect(warnings).toHaveLength(Object.keys(FUNCTIONS).length);
  });

  it("keeps the tables' logical ids, since a replaced table loses its data", () => {
    expect(Object.keys(template.findResources('AWS::DynamoDB::Table'))).toEqual(
      expect.arrayContaining(['PlantsTable0ED39346', 'TokensTable6C9B5BC6']),
    );
    expect(
      logicalIdOf(template, 'AWS::DynamoDB::Table', {
        KeySchema: [{ AttributeName: PLANTS_TABLE.partitionKey.name, KeyType: 'HASH' }],
      }),
    ).toBe('PlantsTable0ED39346');
    expect(
      logicalIdOf(template, 'AWS::DynamoDB::Table', {
        KeySchema: [{ AttributeName: TOKENS_TABLE.partitionKey.name, KeyType: 'HASH' }],
      }),
    ).toBe('TokensTable6C9B5BC6');
  });
});

describe('tables', () => {
  it('plants has the byTag index: tag (S) then id (N), every attribute projected', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      AttributeDefinitions: [
        { AttributeName: 'id', AttributeType: 'N' },
        { AttributeName: 'tag', AttributeType: 'S' },
      ],
      GlobalSecondaryIndexes: [
        {
          IndexName: PLANTS_BY_TAG_INDEX.name,
          KeySchema: [
            { AttributeName: 'tag', KeyType: 'HASH' },
            { AttributeName: 'id', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        },
      ],
    });
  });

  it.each([
    ['id', 'N', 'purgeAt'],
    ['tokenHash', 'S', 'expiresAt'],
    ['subscriberId', 'S', undefined],
  ])('keyed by %s: on-demand, PITR, deletion protection, retained', (key, type, ttl) => {
    template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: {
        KeySchema: [{ AttributeName: key, KeyType: 'HASH' }],
        AttributeDefinitions: Match.arrayWith([{ AttributeName: key, AttributeType: type }]),
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

it('is cdk-nag clean (AwsSolutions), with and without the alarm topic', () => {
  // A synth throws on any unacknowledged finding; it ran for the default props in beforeAll.
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

it("names each alarm after the stack and its runbook heading, and the runbook has every alarm's", () => {
  const headings = [
    ...readFileSync(join(PROJECT_ROOT, 'docs/runbook.md'), 'utf8').matchAll(/^## `(.+)`$/gm),
  ].map(([, heading]) => heading!);
  // `<function>` and `<table>` stand for one path segment.
  const patterns = headings.map(
    (heading) => new RegExp(`^PlantStore-${heading.replace(/<[a-z]+>/g, '[^/]+')}$`),
  );
  const names = Object.values(template.findResources('AWS::CloudWatch::Alarm')).map(
    (alarm) => alarm.Properties.AlarmName as string,
  );
  expect(names.length).toBeGreaterThan(0);
  for (const name of names) expect(patterns.some((pattern) => pattern.test(name))).toBe(true);
  for (const pattern of patterns) expect(names.some((name) => pattern.test(name))).toBe(true);
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
