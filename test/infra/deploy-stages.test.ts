/**
 * The app's deploy-time choices as `cdk synth -c` passes them (lib/infra/app.ts, stages.ts): each
 * stage's stack name, log retention and capacity preset, an unknown stage refused in one line, and
 * sam local's processor (`-c lambdaArch`). Bundling is skipped.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Architecture } from 'aws-cdk-lib/aws-lambda';
import { samLocalArchitecture } from '../../lib/infra/app';
import { UsageError } from '../../lib/cli/args';
import { FUNCTIONS } from '../../lib/definitions/functions';
import { CAPACITY_PRESETS, DEFAULT_STACK_NAME, STAGES } from '../../lib/infra/stages';
import { runBin } from '../support/run-cli';
import { synthApp } from '../support/cdk-app';

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

describe('-c logLevel', () => {
  it('takes a level the EMF metrics survive; another is a usage mistake naming the key', () => {
    const levels = (template: Template) =>
      Object.values(template.findResources('AWS::Lambda::Function')).map(
        (fn) => fn.Properties.LoggingConfig?.ApplicationLogLevel,
      );
    expect(new Set(levels(synthApp({ logLevel: 'DEBUG' }).template))).toEqual(new Set(['DEBUG']));
    for (const value of ['WARN', 'debug']) {
      let thrown: unknown;
      try {
        synthApp({ logLevel: value });
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(UsageError);
      expect((thrown as Error).message).toBe(
        `unknown -c logLevel="${value}": use TRACE, DEBUG, INFO (a higher level drops the EMF metrics)`,
      );
    }
  });
});
