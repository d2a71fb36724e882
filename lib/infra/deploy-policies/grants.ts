/**
 * The pieces the deploy policies are written in: which stage they are for, a grant (named
 * actions on resources), and the ARNs and tag conditions that keep a grant to the stage.
 */
import { stagePolicyNames } from '../bootstrap';
import { STAGE_TAG } from '../stages';

/** The account, region and partition an ARN is written with. */
export interface PseudoParameters {
  readonly partition: string;
  readonly region: string;
  readonly account: string;
}

/**
 * The deployed stack's own, as `Fn::Sub` placeholders (`policyDocument` wraps the strings that
 * hold them): far shorter templates than `Fn::Join`s of `Ref`s.
 */
export const DEPLOYED: PseudoParameters = {
  partition: '${AWS::Partition}',
  region: '${AWS::Region}',
  account: '${AWS::AccountId}',
};

/** Which stage the policies are for. */
export interface DeployPolicyScope {
  /** The stage's name: the value of its `STAGE_TAG`. */
  readonly stage: string;
  /** The stage's stack; CloudFormation names its resources `<stackName>-…`. */
  readonly stackName: string;
  /** The stage's bootstrap qualifier. */
  readonly qualifier: string;
  /** Whether the stack has the webhook's static egress (`-c webhookStaticIps=true`): a VPC. */
  readonly staticEgress: boolean;
  /**
   * How ARNs are written.
   * @default DEPLOYED
   */
  readonly aws?: PseudoParameters;
}

/** One statement: named actions on resources, maybe under conditions. */
export interface Grant {
  /** @default 'Allow' */
  readonly effect?: 'Allow' | 'Deny';
  readonly actions: readonly string[];
  readonly resources: readonly string[];
  readonly conditions?: Record<string, Record<string, string | string[]>>;
}

/** The pseudo parameters of `scope`. */
export const pseudo = (scope: DeployPolicyScope) => scope.aws ?? DEPLOYED;

/** An ARN of the stage's account (and region, when `regional`). */
export function arn(scope: DeployPolicyScope, service: string, resource: string, regional = true) {
  const { partition, region, account } = pseudo(scope);
  return `arn:${partition}:${service}:${regional ? region : ''}:${account}:${resource}`;
}

/** The names CloudFormation gives the stack's resources: `<stackName>-<logical id>-<suffix>`. */
export const named = (scope: DeployPolicyScope) => `${scope.stackName}-*`;

/** The stack's roles (CloudFormation names them like the rest). */
export const stackRoles = (scope: DeployPolicyScope) =>
  arn(scope, 'iam', `role/${named(scope)}`, false);

/** Only a resource that carries the stage's tag. */
export const tagged = (scope: DeployPolicyScope) => ({
  StringEquals: { [`aws:ResourceTag/${STAGE_TAG}`]: scope.stage },
});

/**
 * Only a request that tags what it creates with the stage's tag: on nothing that carries a stage
 * tag already (another stage's resource is never re-tagged through it).
 */
export const taggedOnCreate = (scope: DeployPolicyScope) => ({
  StringEquals: { [`aws:RequestTag/${STAGE_TAG}`]: scope.stage },
  Null: { [`aws:ResourceTag/${STAGE_TAG}`]: 'true' },
});

/** The ARN of the stage's workload boundary. */
export const workloadBoundaryArn = (scope: DeployPolicyScope) =>
  arn(scope, 'iam', `policy/${stagePolicyNames(scope.stackName).workloadBoundary}`, false);
