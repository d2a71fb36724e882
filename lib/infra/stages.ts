/**
 * The deployment stages, chosen with `cdk deploy -c stage=<name>`: each is its own stack with its
 * own throttle, log retention and removal policies. Without a stage the app deploys the stack
 * `PlantStore` with the stack's defaults. docs/guides/deploying.md says why.
 */
import { RemovalPolicy } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { UsageError } from '../cli/args';
import type { PlantStoreStackProps } from './plant-store-stack';

/** What a stage decides; anything else comes from the stack's defaults or the context. */
export type StageSettings = Pick<
  PlantStoreStackProps,
  | 'throttlingRateLimit'
  | 'throttlingBurstLimit'
  | 'logRetention'
  | 'logRemovalPolicy'
  | 'accessLogRetention'
  | 'accessLogRemovalPolicy'
  | 'alarmKeyRemovalPolicy'
> & {
  /** The CloudFormation stack name. */
  readonly stackName: string;
  /**
   * The stage's CDK bootstrap qualifier (`cdk bootstrap --qualifier`): its own deploy,
   * publishing and CloudFormation execution roles and asset bucket, so that in one account the
   * stages share no role (docs/guides/deploying.md, "Setting up deployments").
   * @default - CDK's default qualifier (the unnamed stack, deployed by hand)
   */
  readonly qualifier?: string;
};

/** The stack deployed when no stage is named (the stack's own defaults). */
export const DEFAULT_STACK_NAME = 'PlantStore';

/**
 * The tag every resource of a stage's stack carries, with the stage's name as its value: the
 * stage's deploy policies reach a KMS key, an API or a network piece (whose ARNs hold no stack
 * name) only through it (lib/infra/deploy-policies/).
 */
export const STAGE_TAG = 'plant-store:stage';

/** Every stage, by the name given to `-c stage=`. */
export const STAGES = {
  /** A developer's or a pull request's stack: torn down often, so nothing outlives it. */
  dev: {
    stackName: 'PlantStore-dev',
    qualifier: 'plantdev',
    throttlingRateLimit: 10,
    throttlingBurstLimit: 20,
    logRetention: RetentionDays.ONE_WEEK,
    logRemovalPolicy: RemovalPolicy.DESTROY,
    accessLogRetention: RetentionDays.ONE_WEEK,
    accessLogRemovalPolicy: RemovalPolicy.DESTROY,
    alarmKeyRemovalPolicy: RemovalPolicy.DESTROY,
  },
  /** The service users call: its logs are the audit trail and outlive the stack. */
  prod: {
    stackName: 'PlantStore-prod',
    qualifier: 'plantprod',
    throttlingRateLimit: 50,
    throttlingBurstLimit: 100,
    logRetention: RetentionDays.THREE_MONTHS,
    logRemovalPolicy: RemovalPolicy.RETAIN,
    accessLogRetention: RetentionDays.ONE_YEAR,
    accessLogRemovalPolicy: RemovalPolicy.RETAIN,
    alarmKeyRemovalPolicy: RemovalPolicy.RETAIN,
  },
} as const satisfies Record<string, StageSettings>;

/** A stage's name. */
export type StageName = keyof typeof STAGES;

/** What a capacity preset changes on top of a stage. */
export type CapacityPreset = Pick<
  PlantStoreStackProps,
  'throttlingRateLimit' | 'throttlingBurstLimit' | 'reservedConcurrency'
>;

/**
 * Presets for a rate of creates, chosen with `-c capacity=<name>` on top of a stage; each number
 * is argued in docs/capacity.md and checked against its model by test/generators/unit/capacity.test.ts.
 * The throttle is 1.2 times the rate and its burst one second of it (a burst gets through, a
 * runaway client is stopped at a known cost); from `10k` the account's API Gateway quota must be
 * raised to match, or it binds first. create-plant reserves three times the concurrency the model
 * gives it (a DynamoDB slowdown to three times its latency is still served), and at least a
 * tenth of the throttle: Lambda invokes a function at most 10 times its concurrency a second, so a
 * smaller reservation would cap creates below the throttle (Lambda's throttle, a 5xx through the
 * gateway, not the stage's 429). The reservation keeps create-plant's environments from other
 * functions and applications of the account and caps what a flood of creates costs; what it
 * reserves, every other function loses. Those run in what is left (the pool), under the three
 * rules AWS states: each is invoked at most 10 times the pool a second, all functions together at
 * most 10 times the account's concurrency, and those without a reservation run at once in the
 * pool. So the account's concurrency must hold the reservations and a pool for the others sized by
 * the same worst case (the throttle's requests all gets or lists, with the authorizer missing on
 * each; docs/capacity.md, "Raising quotas", gives the figures and the rule that binds), raised
 * before the deployment: below the reservations + 100 it fails, and short of the figure it deploys
 * with a smaller pool, where Lambda may throttle the reads. The authorizer reserves nothing: its
 * load follows the number of distinct tokens, not the creates, and a cap would answer 500 to valid
 * tokens; the pool counts it missing on every request.
 */
export const CAPACITY_PRESETS = {
  '1k': {
    throttlingRateLimit: 1_200,
    throttlingBurstLimit: 1_200,
    reservedConcurrency: { 'create-plant': 120 },
  },
  '10k': {
    throttlingRateLimit: 12_000,
    throttlingBurstLimit: 12_000,
    reservedConcurrency: { 'create-plant': 1_200 },
  },
  '100k': {
    throttlingRateLimit: 120_000,
    throttlingBurstLimit: 120_000,
    reservedConcurrency: { 'create-plant': 12_000 },
  },
} as const satisfies Record<string, CapacityPreset>;

/**
 * The preset of `-c capacity=<name>` (none when `name` is undefined); an unknown name is an
 * error that lists the presets.
 */
export function capacityPreset(name: string | undefined): CapacityPreset {
  if (name === undefined) return {};
  if (!Object.hasOwn(CAPACITY_PRESETS, name)) {
    throw new UsageError(
      `unknown capacity ${JSON.stringify(name)}: use -c capacity=${Object.keys(CAPACITY_PRESETS).join('|')}, or none`,
    );
  }
  return CAPACITY_PRESETS[name as keyof typeof CAPACITY_PRESETS];
}

/**
 * The refs each stage deploys from through GitHub, as IAM `StringLike` patterns on the OIDC
 * token's `ref` claim: its deploy role trusts only these (lib/infra/constructs/github-deploy-role.ts)
 * and the Deploy workflow refuses others before it starts. prod: only `main`, whose Deploy workflow
 * is the reviewed one (a release tag is deployed by main's workflow, which checks the tag is on
 * main); dev: this repository's branches, which is what a branch's stack is for (not tags, not
 * pull-request merge refs).
 */
export const DEPLOY_REFS: Readonly<Record<StageName, readonly string[]>> = {
  dev: ['refs/heads/*'],
  prod: ['refs/heads/main'],
};

/** The workflow whose jobs may hold a stage's deploy role (the token's `job_workflow_ref`). */
export const DEPLOY_WORKFLOW = '.github/workflows/deploy.yml';

/**
 * The settings of `-c stage=<name>` (the default stack when `name` is undefined); an unknown
 * name is an error that lists the stages.
 */
export function stageSettings(name: string | undefined): StageSettings {
  if (name === undefined) return { stackName: DEFAULT_STACK_NAME };
  if (!Object.hasOwn(STAGES, name)) {
    throw new UsageError(
      `unknown stage ${JSON.stringify(name)}: use -c stage=${Object.keys(STAGES).join('|')}, or no stage for the ${DEFAULT_STACK_NAME} stack`,
    );
  }
  return STAGES[name as StageName];
}
