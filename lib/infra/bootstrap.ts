/**
 * The names CDK's bootstrap gives a qualifier's resources (`cdk bootstrap --qualifier <q>`), the
 * names of the policies this repository defines for a stage's bootstrap, and the one `cdk
 * bootstrap` command of a stage: read by the stage's stack (its key policy names its execution
 * role), by the deploy access stack (the GitHub roles may assume only their stage's roles; the
 * policies are created there, and its `BootstrapCommand` output prints the command) and by
 * docs/guides/deploying.md.
 */
import { Aws } from 'aws-cdk-lib';

/**
 * The bootstrap roles a deployment assumes (`cdk bootstrap`'s names, per qualifier). Not the
 * lookup role: CDK gives it `ReadOnlyAccess`, and the stage's stack makes no lookup (the CLI then
 * reads the deployed template with the deploy role, which reaches only the stage's stack).
 */
export const CDK_BOOTSTRAP_ROLES = ['deploy', 'file-publishing'] as const;

/** A role of the bootstrap (`cdk-<q>-<kind>-role-<account>-<region>`). */
export type BootstrapRole =
  (typeof CDK_BOOTSTRAP_ROLES)[number] | 'cfn-exec' | 'image-publishing' | 'lookup';

/** Where a stage's bootstrap is: its qualifier, in the account and region of the stack using it. */
export interface BootstrapScope {
  readonly qualifier: string;
  /** @default Aws.ACCOUNT_ID */
  readonly account?: string;
  /** @default Aws.REGION */
  readonly region?: string;
  /** @default Aws.PARTITION */
  readonly partition?: string;
}

const resolved = (scope: BootstrapScope) => ({
  qualifier: scope.qualifier,
  account: scope.account ?? Aws.ACCOUNT_ID,
  region: scope.region ?? Aws.REGION,
  partition: scope.partition ?? Aws.PARTITION,
});

/** The ARN of one bootstrap role of `scope`. */
export function bootstrapRoleArn(scope: BootstrapScope, role: BootstrapRole): string {
  const { qualifier, account, region, partition } = resolved(scope);
  return `arn:${partition}:iam::${account}:role/cdk-${qualifier}-${role}-role-${account}-${region}`;
}

/** The ARN of the bootstrap's asset bucket of `scope`. */
export function bootstrapBucketArn(scope: BootstrapScope): string {
  const { qualifier, account, region, partition } = resolved(scope);
  return `arn:${partition}:s3:::cdk-${qualifier}-assets-${account}-${region}`;
}

/** The ARN of the SSM parameter holding the bootstrap's version, which deployments read. */
export function bootstrapVersionParameterArn(scope: BootstrapScope): string {
  const { qualifier, account, region, partition } = resolved(scope);
  return `arn:${partition}:ssm:${region}:${account}:parameter/cdk-bootstrap/${qualifier}/version`;
}

/** The names of the managed policies a stage's bootstrap and stack are held to. */
export function stagePolicyNames(stackName: string) {
  return {
    /** `cdk bootstrap --cloudformation-execution-policies` (all three): what CloudFormation may do. */
    executionData: `${stackName}-cfn-execution-data`,
    executionCompute: `${stackName}-cfn-execution-compute`,
    executionNetwork: `${stackName}-cfn-execution-network`,
    /** `cdk bootstrap --custom-permissions-boundary`, on every bootstrap role of the stage. */
    deployBoundary: `${stackName}-deploy-boundary`,
    /** The boundary of every role the stage's stack creates. */
    workloadBoundary: `${stackName}-workload-boundary`,
  } as const;
}

/**
 * The CloudFormation stack of a qualifier's bootstrap (`cdk bootstrap --toolkit-stack-name`): its
 * own, never CDK's default `CDKToolkit`, which `cdk bootstrap` would otherwise update to the new
 * qualifier, deleting the roles of whatever bootstrap it held (another stage's, or the account's
 * default one).
 */
export const toolkitStackName = (stage: string) => `PlantStoreToolkit-${stage}`;

/** What a stage's `cdk bootstrap` is given. */
export interface BootstrapCommandProps {
  /** The stage's name. */
  readonly stage: string;
  /** The stage's stack name (its policies are named after it). */
  readonly stackName: string;
  /** The stage's qualifier. */
  readonly qualifier: string;
  /** @default '$ACCOUNT' (a shell variable) */
  readonly account?: string;
  /** @default '$AWS_REGION' (a shell variable) */
  readonly region?: string;
  /** @default 'aws' */
  readonly partition?: string;
}

/**
 * The arguments of a stage's `cdk bootstrap`: its qualifier in its own toolkit stack, held to the
 * stage's execution policies, every role of it under the stage's deploy boundary.
 */
export function bootstrapArgs(props: BootstrapCommandProps): string[] {
  const { account = '$ACCOUNT', region = '$AWS_REGION', partition = 'aws' } = props;
  const names = stagePolicyNames(props.stackName);
  const policy = (name: string) => `arn:${partition}:iam::${account}:policy/${name}`;
  return [
    'cdk',
    'bootstrap',
    '--no-notices',
    `aws://${account}/${region}`,
    '--qualifier',
    props.qualifier,
    '--toolkit-stack-name',
    toolkitStackName(props.stage),
    '--cloudformation-execution-policies',
    [names.executionData, names.executionCompute, names.executionNetwork].map(policy).join(','),
    '--custom-permissions-boundary',
    names.deployBoundary,
    '--apply-permissions-boundary-to-all-roles',
  ];
}

/** `bootstrapArgs` as one shell command line (`npx cdk bootstrap …`). */
export const bootstrapCommand = (props: BootstrapCommandProps) =>
  ['npx', ...bootstrapArgs(props)].join(' ');
