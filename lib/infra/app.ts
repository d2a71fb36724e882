/**
 * The CDK app's content, read from its context, whose keys `CDK_CONTEXT`
 * (lib/definitions/settings.ts) defines: the stage and capacity preset (lib/infra/stages.ts),
 * the alarms' email, sam local's endpoint and architecture, the log level, tracing, the
 * webhook's static addresses; a GitHub repository adds GitHub's OIDC provider's stack and each
 * stage's deploy access stack (lib/infra/deploy-access-stack.ts; `-c sharedAccount=true` lets one
 * account hold both stages). A stage's stack uses the
 * stage's bootstrap qualifier, carries the stage's tag, and its roles the stage's workload
 * boundary (lib/infra/deploy-policies/). cdk-nag's AwsSolutions checks run on every synth.
 */
import { DefaultStackSynthesizer, Tags, Validations, type App } from 'aws-cdk-lib';
import { ManagedPolicy, PermissionsBoundary } from 'aws-cdk-lib/aws-iam';
import { Architecture, type ApplicationLogLevel } from 'aws-cdk-lib/aws-lambda';
import { AwsSolutionsChecks } from 'cdk-nag';
import { UsageError } from '../cli/args';
import type { ContextKey } from '../definitions/settings';
import { stagePolicyNames } from './bootstrap';
import { METRIC_LOG_LEVELS } from './constructs/service-function';
import { parseRepository } from './constructs/github-deploy-role';
import {
  DeployAccessStack,
  GITHUB_OIDC_STACK_NAME,
  GitHubOidcStack,
  deployAccessStackName,
} from './deploy-access-stack';
import { PlantStoreStack } from './plant-store-stack';
import { STAGE_TAG, STAGES, capacityPreset, stageSettings, type StageName } from './stages';

/** Adds the Plant Store stack that the app's context asks for, and cdk-nag, to `app`. */
export function addPlantStore(app: App): PlantStoreStack {
  // The keys are lib/definitions/settings.ts's: a key read here and not defined there fails tsc.
  const context = (key: ContextKey) => {
    const value: unknown = app.node.tryGetContext(key);
    // `-c alarmEmail=` (as a workflow passes an unset variable) means none.
    return value === undefined || value === '' ? undefined : String(value);
  };
  const stageName = context('stage');
  const { stackName, qualifier, ...stage } = stageSettings(stageName);
  const stack = new PlantStoreStack(app, stackName, {
    ...stage,
    ...capacityPreset(context('capacity')),
    alarmEmail: context('alarmEmail'),
    dynamoDbEndpoint: context('dynamoDbEndpoint'),
    architecture: samLocalArchitecture(context('lambdaArch'), context('dynamoDbEndpoint')),
    applicationLogLevel: logLevel(context('logLevel')),
    tracing: context('tracing') === 'true',
    webhookStaticIps: context('webhookStaticIps') === 'true',
    env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
    // No lookup role: the stack makes no lookup, and a stage's GitHub role may not assume it
    // (lib/infra/bootstrap.ts); the CLI reads the deployed template with the deploy role.
    ...(qualifier !== undefined && {
      synthesizer: new DefaultStackSynthesizer({
        qualifier,
        useLookupRoleForStackOperations: false,
      }),
    }),
  });
  if (stageName !== undefined) {
    // What the stage's deploy policies recognise its resources by, and hold its roles to.
    // (A dashboard takes no tags in CloudFormation's schema; it is reached by its name.)
    Tags.of(stack).add(STAGE_TAG, stageName, {
      excludeResourceTypes: ['AWS::CloudWatch::Dashboard'],
    });
    PermissionsBoundary.of(stack).apply(
      ManagedPolicy.fromManagedPolicyName(
        stack,
        'WorkloadBoundary',
        stagePolicyNames(stackName).workloadBoundary,
      ),
    );
  }
  const repository = context('githubRepository');
  if (repository !== undefined) {
    const github = usage(() =>
      parseRepository(repository, {
        ownerId: context('githubOwnerId'),
        id: context('githubRepositoryId'),
      }),
    );
    new GitHubOidcStack(app, GITHUB_OIDC_STACK_NAME);
    for (const name of Object.keys(STAGES) as StageName[]) {
      new DeployAccessStack(app, deployAccessStackName(name), {
        stage: name,
        repository: github,
        webhookStaticIps: context('webhookStaticIps') === 'true',
        sharedAccount: context('sharedAccount') === 'true',
      });
    }
  }
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
  return stack;
}

/** `-c logLevel=…`: one the EMF metrics survive (a usage mistake otherwise, naming the key). */
function logLevel(value: string | undefined): ApplicationLogLevel | undefined {
  if (value === undefined) return undefined;
  const level = METRIC_LOG_LEVELS.find((candidate) => candidate === value);
  if (level === undefined) {
    throw new UsageError(
      `unknown -c logLevel=${JSON.stringify(value)}: use ${METRIC_LOG_LEVELS.join(', ')} (a higher level drops the EMF metrics)`,
    );
  }
  return level;
}

/** What `read` returns; its error, a mistake in the context, as a `UsageError`. */
function usage<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** Lambda's name for each processor Node reports (`process.arch`) that Lambda runs. */
const ARCHITECTURES: Readonly<Record<string, Architecture>> = {
  x64: Architecture.X86_64,
  arm64: Architecture.ARM_64,
};

/**
 * `-c lambdaArch=host|x86_64|arm64`: the functions' architecture in a template for `sam local`,
 * whose Docker Engine on an x86-64 Linux runs arm64 images only with QEMU installed. The bundles
 * are plain JavaScript, the same on both. Only with `-c dynamoDbEndpoint` (a sam-local synth):
 * a deployed stack stays on arm64.
 */
export function samLocalArchitecture(
  value: string | undefined,
  dynamoDbEndpoint: string | undefined,
  arch: string = process.arch,
): Architecture | undefined {
  if (value === undefined) return undefined;
  if (dynamoDbEndpoint === undefined) {
    throw new UsageError(
      `-c lambdaArch=${value} is for sam local only: give it with -c dynamoDbEndpoint=…; a deployed stack runs on arm64`,
    );
  }
  const name = value === 'host' ? ARCHITECTURES[arch]?.name : value;
  const architecture = Object.values(ARCHITECTURES).find((a) => a.name === name);
  if (!architecture) {
    throw new UsageError(
      value === 'host'
        ? `-c lambdaArch=host: Lambda has no architecture for this machine's ${arch}`
        : `unknown -c lambdaArch=${JSON.stringify(value)}: use host, x86_64 or arm64`,
    );
  }
  return architecture;
}
