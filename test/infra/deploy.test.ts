/**
 * What only a deployment would otherwise show (docs/deploy-notes.md): alarms CloudWatch can
 * deliver, the invoke permissions, the access-log variables, the stages and their log policies,
 * and CloudFormation's own validation with cdk-nag, shown to fail synth on a broken construct.
 * The app is built as `cdk synth` builds it (lib/infra/app.ts, cdk.json's context); bundling is
 * skipped here (test/infra/stack.test.ts checks the bundles).
 */
import { App, CfnResource, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Architecture } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { AwsSolutionsChecks } from 'cdk-nag';
import { Validations } from 'aws-cdk-lib';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { API } from '../../lib/definitions/api';
import { addPlantStore, samLocalArchitecture } from '../../lib/infra/app';
import { FUNCTIONS } from '../../lib/definitions/functions';
import { STACK_DESCRIPTION } from '../../lib/infra/plant-store-stack';
import { CAPACITY_PRESETS, DEFAULT_STACK_NAME, STAGES } from '../../lib/infra/stages';
import { runBin } from '../support/run-cli';

const CONTEXT = JSON.parse(readFileSync(join(__dirname, '../../cdk.json'), 'utf8')).context;

const temporary: string[] = [];
afterAll(() => {
  for (const dir of temporary) rmSync(dir, { recursive: true, force: true });
});
function outdir(): string {
  temporary.push(mkdtempSync(join(tmpdir(), 'plant-store-cdk-')));
  return temporary.at(-1)!;
}

/** Synthesizes the app with `-c` values as the CLI passes them; no bundling. */
function synthApp(context: Record<string, string> = {}) {
  const dir = outdir();
  const app = new App({
    outdir: dir,
    context: { ...CONTEXT, 'aws:cdk:bundling-stacks': [], ...context },
  });
  const stack = addPlantStore(app);
  app.synth();
  return { stack, template: Template.fromStack(stack), outdir: dir };
}

/** Access-log variables of HTTP APIs (API Gateway Developer Guide, "Customize HTTP API access logs"). */
const HTTP_API_LOG_VARIABLES = new Set([
  '$context.accountId',
  '$context.apiId',
  '$context.authorizer.error',
  '$context.domainName',
  '$context.error.message',
  '$context.httpMethod',
  '$context.identity.sourceIp',
  '$context.identity.userAgent',
  '$context.integrationErrorMessage',
  '$context.integrationLatency',
  '$context.integrationStatus',
  '$context.path',
  '$context.protocol',
  '$context.requestId',
  '$context.requestTime',
  '$context.requestTimeEpoch',
  '$context.responseLatency',
  '$context.responseLength',
  '$context.routeKey',
  '$context.stage',
  '$context.status',
]);

const ALARM_SOURCE = {
  StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
  ArnLike: {
    'aws:SourceArn': {
      'Fn::Join': [
        '',
        [
          'arn:',
          { Ref: 'AWS::Partition' },
          ':cloudwatch:',
          { Ref: 'AWS::Region' },
          ':',
          { Ref: 'AWS::AccountId' },
          ':alarm:*',
        ],
      ],
    },
  },
};

describe('alarm notifications CloudWatch can deliver', () => {
  const { template } = synthApp({ alarmEmail: 'ops@example.com' });
  const [topicId] = Object.keys(template.findResources('AWS::SNS::Topic'));
  // The topic's own key (the webhook secrets have a key of their own).
  const keyId = template.findResources('AWS::SNS::Topic')[topicId].Properties.KmsMasterKeyId[
    'Fn::GetAtt'
  ][0] as string;

  it('encrypts the topic with a rotated customer-managed key, not alias/aws/sns', () => {
    expect(template.findResources('AWS::KMS::Key')[keyId].Properties.EnableKeyRotation).toBe(true);
    template.hasResourceProperties('AWS::SNS::Topic', {
      KmsMasterKeyId: { 'Fn::GetAtt': [keyId, 'Arn'] },
    });
    expect(JSON.stringify(template.toJSON())).not.toContain('alias/aws/sns');
  });

  it("lets cloudwatch.amazonaws.com use the key, only for this account's alarms", () => {
    template.hasResourceProperties('AWS::KMS::Key', {
      KeyPolicy: {
        Statement: Match.arrayWith([
          {
            Sid: 'AllowCloudWatchAlarmsToPublish',
            Effect: 'Allow',
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
            Resource: '*',
            Condition: ALARM_SOURCE,
          },
        ]),
      },
    });
  });

  it('lets cloudwatch.amazonaws.com publish to the topic (its policy replaces the default)', () => {
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      Topics: [{ Ref: topicId }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          {
            Sid: 'AllowCloudWatchAlarmsToPublish',
            Effect: 'Allow',
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Action: 'sns:Publish',
            Resource: { Ref: topicId },
            Condition: ALARM_SOURCE,
          },
        ]),
      },
    });
  });

  it('gives every alarm exactly the topic as its action, emailed to the address', () => {
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm'));
    expect(alarms.length).toBeGreaterThan(0);
    for (const alarm of alarms) {
      expect(alarm.Properties.AlarmActions).toEqual([{ Ref: topicId }]);
    }
    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ops@example.com',
      TopicArn: { Ref: topicId },
    });
  });

  it('without an address: no topic, no key, alarms without actions', () => {
    const { template: quiet } = synthApp({ alarmEmail: '' });
    quiet.resourceCountIs('AWS::SNS::Topic', 0);
    // Only the webhook secrets' key is left.
    expect(Object.keys(quiet.findResources('AWS::KMS::Key'))).toHaveLength(
      Object.keys(template.findResources('AWS::KMS::Key')).length - 1,
    );
    for (const alarm of Object.values(quiet.findResources('AWS::CloudWatch::Alarm'))) {
      expect(alarm.Properties.AlarmActions).toBeUndefined();
    }
  });
});

describe('what API Gateway and Lambda check only when deployed', () => {
  const { template } = synthApp();
  const [apiId] = Object.keys(template.findResources('AWS::ApiGatewayV2::Api'));
  const [authorizerId] = Object.keys(template.findResources('AWS::ApiGatewayV2::Authorizer'));
  const functionId = (id: string) =>
    Object.keys(template.findResources('AWS::Lambda::Function')).find((key) =>
      new RegExp(`^${id}Function[0-9A-F]{8}$`).test(key),
    )!;
  const executeApi = (suffix: unknown[]) => ({
    'Fn::Join': [
      '',
      [
        'arn:',
        { Ref: 'AWS::Partition' },
        ':execute-api:',
        { Ref: 'AWS::Region' },
        ':',
        { Ref: 'AWS::AccountId' },
        ':',
        { Ref: apiId },
        ...suffix,
      ],
    ],
  });

  it('lets API Gateway invoke the authorizer only as this API’s authorizer', () => {
    template.hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunction',
      Principal: 'apigateway.amazonaws.com',
      FunctionName: { 'Fn::GetAtt': [functionId(FUNCTIONS.authorizer.id), 'Arn'] },
      SourceArn: executeApi(['/authorizers/', { Ref: authorizerId }]),
    });
  });

  it.each(API.routes)('lets API Gateway invoke $function only for $method $path', (route) => {
    template.hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunction',
      Principal: 'apigateway.amazonaws.com',
      FunctionName: { 'Fn::GetAtt': [functionId(FUNCTIONS[route.function].id), 'Arn'] },
      SourceArn: executeApi([`/*/*${route.path}`]),
    });
  });

  it('grants no other invoke permission', () => {
    template.resourceCountIs('AWS::Lambda::Permission', API.routes.length + 1);
  });

  it('writes access logs with variables the HTTP API documents', () => {
    const [stage] = Object.values(template.findResources('AWS::ApiGatewayV2::Stage'));
    const values = Object.values(JSON.parse(stage!.Properties.AccessLogSettings.Format));
    expect(values.length).toBeGreaterThan(0);
    // `$context.authorizer.<key>` reads a key of the context the authorizer returns.
    const contextKeys = ['tokenId', 'name', 'scopes'].map((key) => `$context.authorizer.${key}`);
    for (const value of values) {
      expect([
        value,
        HTTP_API_LOG_VARIABLES.has(value as string) || contextKeys.includes(value as string),
      ]).toEqual([value, true]);
    }
    expect(values).toContain('$context.authorizer.tokenId');
  });

  it('describes the stack and its outputs with every operation', () => {
    const json = template.toJSON() as {
      Description: string;
      Outputs: Record<string, { Description: string }>;
    };
    expect(json.Description).toBe(STACK_DESCRIPTION);
    for (const route of API.routes) {
      expect(json.Description).toContain(`${route.method} ${route.path}`);
      expect(json.Outputs.ApiUrl!.Description).toContain(
        `${route.method} <ApiUrl>${route.path.slice(1)}`,
      );
    }
  });
});

describe('stages (-c stage=<name>)', () => {
  const logGroups = (template: Template) => {
    const groups = template.findResources('AWS::Logs::LogGroup');
    const [stage] = Object.values(template.findResources('AWS::ApiGatewayV2::Stage'));
    const accessId = stage!.Properties.AccessLogSettings.DestinationArn['Fn::GetAtt'][0];
    const policy = (id: string) => ({
      retention: groups[id]!.Properties.RetentionInDays,
      deletion: groups[id]!.DeletionPolicy,
    });
    return {
      access: policy(accessId),
      functions: Object.keys(groups)
        .filter((id) => id !== accessId)
        .map(policy),
    };
  };

  it('without a stage: the PlantStore stack, access logs kept a year and retained', () => {
    const { stack, template } = synthApp();
    expect(stack.stackName).toBe(DEFAULT_STACK_NAME);
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      DefaultRouteSettings: { ThrottlingRateLimit: 50, ThrottlingBurstLimit: 100 },
    });
    const logs = logGroups(template);
    expect(logs.access).toEqual({ retention: 365, deletion: 'Retain' });
    expect(logs.functions).toEqual(
      Object.keys(FUNCTIONS).map(() => ({ retention: 30, deletion: 'Delete' })),
    );
  });

  it.each([
    ['dev', 7, 'Delete', 7, 'Delete', 'Delete'],
    ['prod', 90, 'Retain', 365, 'Retain', 'Retain'],
  ] as const)(
    '%s: its stack name, throttle, log retention and removal, key removal',
    (name, functionDays, functionDeletion, accessDays, accessDeletion, keyDeletion) => {
      const { stack, template } = synthApp({ stage: name, alarmEmail: 'ops@example.com' });
      const stage = STAGES[name];
      expect(stack.stackName).toBe(stage.stackName);
      template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
        DefaultRouteSettings: {
          ThrottlingRateLimit: stage.throttlingRateLimit,
          ThrottlingBurstLimit: stage.throttlingBurstLimit,
        },
      });
      const logs = logGroups(template);
      expect(logs.access).toEqual({ retention: accessDays, deletion: accessDeletion });
      expect(logs.functions).toEqual(
        Object.keys(FUNCTIONS).map(() => ({ retention: functionDays, deletion: functionDeletion })),
      );
      template.hasResource('AWS::KMS::Key', { DeletionPolicy: keyDeletion });
      // Whatever the stage, the tables keep their data.
      template.allResources('AWS::DynamoDB::Table', { DeletionPolicy: 'Retain' });
    },
  );

  it.each(Object.entries(CAPACITY_PRESETS))(
    '-c capacity=%s on top of prod: its throttle and the reservation of create-plant only',
    (name, preset) => {
      const { template } = synthApp({ stage: 'prod', capacity: name });
      template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
        DefaultRouteSettings: {
          ThrottlingRateLimit: preset.throttlingRateLimit,
          ThrottlingBurstLimit: preset.throttlingBurstLimit,
        },
      });
      const reserved = Object.values(template.findResources('AWS::Lambda::Function'))
        .map((fn) => fn.Properties.ReservedConcurrentExecutions)
        .filter((value) => value !== undefined);
      expect(reserved).toEqual([preset.reservedConcurrency['create-plant']]);
      template.hasResourceProperties('AWS::Lambda::Function', {
        ReservedConcurrentExecutions: preset.reservedConcurrency['create-plant'],
        Environment: { Variables: Match.objectLike({ POWERTOOLS_SERVICE_NAME: 'create-plant' }) },
      });
      expect(() => synthApp({ stage: 'prod', capacity: '5k' })).toThrow(
        'unknown capacity "5k": use -c capacity=1k|10k|100k, or none',
      );
    },
  );

  it('refuses an unknown stage, naming the stages', () => {
    expect(() => synthApp({ stage: 'qa' })).toThrow(
      'unknown stage "qa": use -c stage=dev|prod, or no stage for the PlantStore stack',
    );
  });

  it('cdk synth -c stage=staging prints that one line, without a stack trace', async () => {
    const outdir = mkdtempSync(join(tmpdir(), 'plant-store-stage-'));
    try {
      // What `cdk synth -c stage=staging` passes the app (it then adds its own "exited" line).
      const result = await runBin('plant-store', [], {
        CDK_CONTEXT_JSON: JSON.stringify({ stage: 'staging' }),
        CDK_OUTDIR: outdir,
      });
      expect(result).toEqual({
        code: 1,
        stdout: '',
        stderr:
          'plant-store: unknown stage "staging": use -c stage=dev|prod, or no stage for the PlantStore stack\n',
      });
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
  });
});

describe('CloudFormation validation and cdk-nag', () => {
  // aws-cdk-lib bundles the validator it runs at synth; the test asks it directly as well.
  const validator = createRequire(require.resolve('aws-cdk-lib/package.json'))(
    '@aws/cloudformation-validate',
  ) as {
    CompositeEngine: new () => {
      validateTemplate(
        template: unknown,
        config: { severityLevel: string },
      ): { diagnostics: { severity: string; ruleId: string; message: string }[] };
      free(): void;
    };
    TemplateContent: new (content: string, name: string) => unknown;
  };

  it.each<Record<string, string>>([
    {},
    { alarmEmail: 'ops@example.com' },
    { stage: 'dev' },
    { stage: 'prod', alarmEmail: 'ops@example.com' },
    { webhookStaticIps: 'true' },
  ])('finds nothing in the template synthesized with %p', (context) => {
    // synth throws on any cdk-nag finding or CloudFormation validation error (cdk.json's
    // @aws-cdk/core:validateAgainstDefaultRules), and writes the validator's report.
    const { stack, outdir: dir } = synthApp(context);
    const report = JSON.parse(readFileSync(join(dir, 'validation-report.json'), 'utf8'));
    expect(report.pluginReports.flatMap((r: { violations: unknown[] }) => r.violations)).toEqual(
      [],
    );
    const engine = new validator.CompositeEngine();
    try {
      const template = readFileSync(join(dir, stack.templateFile), 'utf8');
      const { diagnostics } = engine.validateTemplate(
        new validator.TemplateContent(template, stack.templateFile),
        { severityLevel: 'WARN' },
      );
      expect(diagnostics.map((d) => `${d.severity} ${d.ruleId} ${d.message}`)).toEqual([]);
    } finally {
      engine.free();
    }
  });

  /** A throwaway app with the project's context and checks, holding one broken construct. */
  function brokenApp(build: (stack: Stack) => void) {
    const app = new App({ outdir: outdir(), context: CONTEXT });
    build(new Stack(app, 'Broken'));
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    return app;
  }

  it('fails synth on a CloudFormation schema violation, so the check cannot be off', () => {
    const app = brokenApp(
      (stack) =>
        new CfnResource(stack, 'Queue', {
          type: 'AWS::SQS::Queue',
          properties: { SqsManagedSseEnabled: true, MessageRetentionPeriod: 'a week' },
        }),
    );
    expect(() => app.synth()).toThrow(/MessageRetentionPeriod/);
  });

  it('fails synth on a cdk-nag finding', () => {
    const app = brokenApp((stack) => new Topic(stack, 'Unencrypted'));
    expect(() => app.synth()).toThrow(/AwsSolutions-SNS/);
  });
});

describe('sam local on either processor (-c lambdaArch)', () => {
  const architectures = (template: Template) =>
    Object.values(template.findResources('AWS::Lambda::Function')).map(
      (fn) => fn.Properties.Architectures,
    );
  const endpoint = { dynamoDbEndpoint: 'http://127.0.0.1:8000' };

  it('deploys arm64 functions, stage or not', () => {
    for (const context of [{}, { stage: 'prod' }, endpoint] as Record<string, string>[]) {
      const all = architectures(synthApp(context).template);
      expect(all).toHaveLength(Object.keys(FUNCTIONS).length);
      expect(new Set(all.map((a) => JSON.stringify(a)))).toEqual(new Set(['["arm64"]']));
    }
  });

  it.each([
    ['x86_64', 'x86_64'],
    ['arm64', 'arm64'],
    ['host', samLocalArchitecture('host', endpoint.dynamoDbEndpoint)!.name],
  ])('-c lambdaArch=%s builds every function for %s in a sam-local synth', (value, expected) => {
    const all = architectures(synthApp({ ...endpoint, lambdaArch: value }).template);
    expect(all).toEqual(Object.keys(FUNCTIONS).map(() => [expected]));
  });

  it("host is this machine's processor in Lambda's terms", () => {
    expect(samLocalArchitecture('host', 'http://x', 'x64')).toBe(Architecture.X86_64);
    expect(samLocalArchitecture('host', 'http://x', 'arm64')).toBe(Architecture.ARM_64);
    expect(() => samLocalArchitecture('host', 'http://x', 'ia32')).toThrow(
      "-c lambdaArch=host: Lambda has no architecture for this machine's ia32",
    );
  });

  it('refuses it outside a sam-local synth, and an unknown value', () => {
    expect(() => synthApp({ lambdaArch: 'host' })).toThrow(
      '-c lambdaArch=host is for sam local only: give it with -c dynamoDbEndpoint=…; a deployed stack runs on arm64',
    );
    expect(() => synthApp({ ...endpoint, lambdaArch: 'amd64' })).toThrow(
      'unknown -c lambdaArch="amd64": use host, x86_64 or arm64',
    );
  });
});
