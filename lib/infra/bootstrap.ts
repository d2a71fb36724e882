/**
 * The names CDK's bootstrap gives a qualifier's resources (`cdk bootstrap --qualifier <q>`), and
 * the names of the policies this repository defines for a stage's bootstrap: read by the stage's
 * stack (its key policy names its execution role), by the deploy access stack (the GitHub roles
 * may assume only their stage's roles; the policies are created there) and by docs/guides/deploying.md's
 * `cdk bootstrap` commands.
 */
import { Aws } from 'aws-cdk-lib';

/** The bootstrap roles a deployment assumes (`cdk bootstrap`'s names, per qualifier). */
export const CDK_BOOTSTRAP_ROLES = ['deploy', 'file-publishing', 'lookup'] as const;

/** A role of the bootstrap (`cdk-<q>-<kind>-role-<account>-<region>`). */
export type BootstrapRole = (typeof CDK_BOOTSTRAP_ROLES)[number] | 'cfn-exec' | 'image-publishing';

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
    /** `cdk bootstrap --cloudformation-execution-policies` (both): what CloudFormation may do. */
    executionData: `${stackName}-cfn-execution-data`,
    executionCompute: `${stackName}-cfn-execution-compute`,
    /** `cdk bootstrap --custom-permissions-boundary`, on every bootstrap role of the stage. */
    deployBoundary: `${stackName}-deploy-boundary`,
    /** The boundary of every role the stage's stack creates. */
    workloadBoundary: `${stackName}-workload-boundary`,
  } as const;
}
