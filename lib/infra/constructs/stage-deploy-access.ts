/**
 * Everything one stage's deployments are held to, in the stage's account: the GitHub role that
 * reaches only the stage's bootstrap roles, and the three managed policies its bootstrap and its
 * stack are created with (lib/infra/deploy-policies/). `cdk bootstrap` names them by their
 * fixed names (`stagePolicyNames`), so they exist before the bootstrap does.
 */
import { CfnOutput, Validations } from 'aws-cdk-lib';
import { ManagedPolicy } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { stagePolicyNames } from '../bootstrap';
import { policyDocument, wildcardFindings, type DeployPolicyScope } from '../deploy-policies';
import { GitHubDeployRole, type GitHubRepository } from './github-deploy-role';

/** One stage's access settings. */
export interface StageDeployAccessProps {
  /** The stage's name: its GitHub environment and the value of its stage tag. */
  readonly stage: string;
  /** The stage's stack name. */
  readonly stackName: string;
  /** The stage's bootstrap qualifier. */
  readonly qualifier: string;
  /** The refs its deployments may run from. */
  readonly refs: readonly string[];
  /** The workflow file that deploys. */
  readonly workflow: string;
  /** GitHub's OIDC provider in this account. */
  readonly providerArn: string;
  /** The repository that deploys. */
  readonly repository: GitHubRepository;
  /**
   * Whether the stage's stack is synthesized with `-c webhookStaticIps=true` (a VPC).
   * @default false
   */
  readonly staticEgress?: boolean;
}

/**
 * A stage's GitHub role (`GitHub`) and its policies (`ExecutionData`, `ExecutionCompute`,
 * `DeployBoundary`, `WorkloadBoundary`).
 */
export class StageDeployAccess extends Construct {
  readonly github: GitHubDeployRole;
  /** The CloudFormation execution policies: the data's, then the compute's and network's. */
  readonly execution: ManagedPolicy[];
  readonly deployBoundary: ManagedPolicy;
  readonly workloadBoundary: ManagedPolicy;

  constructor(scope: Construct, id: string, props: StageDeployAccessProps) {
    super(scope, id);
    const { stage, stackName, qualifier } = props;
    const names = stagePolicyNames(stackName);
    const policyScope: DeployPolicyScope = {
      stage,
      stackName,
      qualifier,
      staticEgress: props.staticEgress ?? false,
    };
    this.github = new GitHubDeployRole(this, 'GitHub', {
      providerArn: props.providerArn,
      repository: props.repository,
      environment: stage,
      refs: props.refs,
      workflow: props.workflow,
      qualifier,
    });
    const policy = (
      policyId: string,
      kind: keyof ReturnType<typeof stagePolicyNames>,
      description: string,
    ) => {
      const managed = new ManagedPolicy(this, policyId, {
        managedPolicyName: names[kind],
        description,
        document: policyDocument(kind, policyScope),
      });
      Validations.of(managed).acknowledge(
        ...wildcardFindings(kind, policyScope).map((id) => ({
          id,
          reason:
            'every action is named; the wildcard is the prefix CloudFormation gives the stage stack resource names, or a random id (a key, an API) whose resource must then carry the stage tag',
        })),
      );
      return managed;
    };
    this.execution = (['executionData', 'executionCompute'] as const).map((kind) =>
      policy(
        kind === 'executionData' ? 'ExecutionData' : 'ExecutionCompute',
        kind,
        `What CloudFormation may do deploying ${stackName}, ${kind === 'executionData' ? 'its data' : 'its compute and network'} (cdk bootstrap --qualifier ${qualifier} --cloudformation-execution-policies)`,
      ),
    );
    this.deployBoundary = policy(
      'DeployBoundary',
      'deployBoundary',
      `The most any bootstrap role of ${qualifier} may do (cdk bootstrap --custom-permissions-boundary --apply-permissions-boundary-to-all-roles)`,
    );
    this.workloadBoundary = policy(
      'WorkloadBoundary',
      'workloadBoundary',
      `The most any role of the ${stackName} stack may do`,
    );
    new CfnOutput(scope, 'DeployRoleArn', {
      value: this.github.role.roleArn,
      description: `AWS_DEPLOY_ROLE_ARN of the GitHub environment ${stage}`,
    });
  }
}
