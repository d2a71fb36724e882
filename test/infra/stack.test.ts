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
import { API } from '../../lib/api';
import { buildFunctions } from '../../lib/build';
import {
  FUNCTIONS,
  FUNCTION_NAMES,
  tableEnvironment,
  type FunctionName,
} from '../../lib/functions';
import { PlantStoreStack, type PlantStoreStackProps } from '../../lib/plant-store-stack';

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
function synth(props: PlantStoreStackProps = {}) {
  outdir = tempDir('plant-store-cdk-');
  const app = new App({ outdir, context: CONTEXT });
  // CDK announces each bundling on stderr ("Bundling asset …"); the test needs none of it.
  const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
  try {
    const stack = new PlantStoreStack(app, 'PlantStore', props);
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    app.synth();
    return Template.fromStack(stack);
  } finally {
    stderr.mockRestore();
  }
}

let template: Template;
let defaultOutdir: string;
beforeAll(() => {
  template = synth();
  defaultOutdir = outdir;
});

function logicalIdOf(type: string, props: Record<string, unknown>): string {
  const [id] = Object.keys(template.findResources(type, { Properties: Match.objectLike(props) }));
  if (!id) throw new Error(`no ${type} with ${JSON.stringify(props)}`);
  return id;
}

describe('the HTTP API is the shared definition', () => {
  it('has exactly the routes of lib/api.ts, each behind the authorizer', () => {
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

  it('sends each route to the function lib/api.ts names', () => {
    const integrations = template.findResources('AWS::ApiGatewayV2::Integration');
    const targets = Object.values(template.findResources('AWS::ApiGatewayV2::Route')).map(
      (route) => {
        const target = route.Properties.Target['Fn::Join'][1][1].Ref as string;
        const uri = integrations[target]!.Properties.IntegrationUri['Fn::GetAtt'][0] as string;
        return `${route.Properties.RouteKey} -> ${uri.replace(/[0-9A-F]{8}$/, '')}`;
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
    // One per function, and the access logs.
    template.resourcePropertiesCountIs(
      'AWS::Logs::LogGroup',
      { RetentionInDays: 30 },
      FUNCTION_NAMES.length + 1,
    );
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
  });

  it('grants each function exactly its table actions: GetItem on tokens; PutItem+GetItem, GetItem, Scan, DeleteItem on plants', () => {
    const tokens = logicalIdOf('AWS::DynamoDB::Table', {
      KeySchema: [{ AttributeName: 'tokenHash', KeyType: 'HASH' }],
    });
    const plants = logicalIdOf('AWS::DynamoDB::Table', {
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
    });
    const dynamoStatements = Object.entries(template.findResources('AWS::IAM::Policy')).flatMap(
      ([id, policy]) =>
        (
          policy.Properties.PolicyDocument.Statement as {
            Action: string | string[];
            Resource: unknown;
          }[]
        )
          .filter((s) => [s.Action].flat().some((a) => a.startsWith('dynamodb:')))
          // `[x].flat()`: one resource may be written alone or as a list (minimizePolicies).
          .map((s) => ({
            policy: id,
            actions: [s.Action].flat().sort(),
            resource: [s.Resource].flat(),
          })),
    );
    expect(dynamoStatements).toEqual([
      {
        policy: expect.stringMatching(/^AuthorizerRole/),
        actions: ['dynamodb:GetItem'],
        resource: [{ 'Fn::GetAtt': [tokens, 'Arn'] }],
      },
      {
        policy: expect.stringMatching(/^CreatePlantRole/),
        actions: ['dynamodb:GetItem', 'dynamodb:PutItem'],
        resource: [{ 'Fn::GetAtt': [plants, 'Arn'] }],
      },
      {
        policy: expect.stringMatching(/^GetPlantRole/),
        actions: ['dynamodb:GetItem'],
        resource: [{ 'Fn::GetAtt': [plants, 'Arn'] }],
      },
      {
        policy: expect.stringMatching(/^ListPlantsRole/),
        actions: ['dynamodb:Scan'],
        resource: [{ 'Fn::GetAtt': [plants, 'Arn'] }],
      },
      {
        policy: expect.stringMatching(/^DeletePlantRole/),
        actions: ['dynamodb:DeleteItem'],
        resource: [{ 'Fn::GetAtt': [plants, 'Arn'] }],
      },
    ]);
    expect(JSON.stringify(template.findResources('AWS::IAM::Role'))).not.toContain(
      'ManagedPolicyArns',
    );
  });
});

describe('tables', () => {
  it.each([
    ['id', 'N', undefined],
    ['tokenHash', 'S', 'expiresAt'],
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

describe('alarms and outputs', () => {
  it('alarms on API 5xx, function errors and throttles, and DynamoDB throttling', () => {
    // API 5xx, errors and throttles per function, throttling per table.
    template.resourceCountIs('AWS::CloudWatch::Alarm', 1 + 2 * FUNCTION_NAMES.length + 2);
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

  it('outputs the URL and the table names', () => {
    expect(Object.keys(template.findOutputs('*')).sort()).toEqual([
      'ApiUrl',
      'PlantsTableName',
      'TokensTableName',
    ]);
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

it('sets the DynamoDB endpoint only for a sam-local synth', () => {
  expect(JSON.stringify(template.toJSON())).not.toContain('AWS_ENDPOINT_URL_DYNAMODB');
  const local = synth({ dynamoDbEndpoint: 'http://host.docker.internal:8000' });
  local.allResourcesProperties('AWS::Lambda::Function', {
    Environment: {
      Variables: Match.objectLike({
        AWS_ENDPOINT_URL_DYNAMODB: 'http://host.docker.internal:8000',
      }),
    },
  });
});
