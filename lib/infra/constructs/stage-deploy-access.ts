/**
 * Everything one stage's deployments are held to, in the stage's account: the GitHub role that
 * reaches only the stage's bootstrap roles, and the three managed policies its bootstrap and its
 * stack are created with (lib/infra/deploy-policies/). `cdk bootstrap` names them by their
 * fixed names (`stagePolicyNames`), so they exist before the bootstrap does.
 */
import { Aws, CfnOutput, Validations } from 'aws-cdk-lib';
import { Effect, ManagedPolicy, PolicyDocument, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { bootstrapCommand, stagePolicyNames, toolkitStackName } from '../bootstrap';
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
  /**
   * Whether this account may hold another stage too (`-c sharedAccount=true`). Stages in one
   * account can reach each other's HTTP API: its routes, integrations and authorizers carry no
   * tag and hold the API's random id, so no policy keeps a stage to its own (docs/security.md).
   * @default false - the access stack claims the account for every stage
   *   (`accountStageMarkers`): any other stage's access stack fails to deploy there
   */
  readonly sharedAccount?: boolean;
  /** Every stage's name: a stack that is not shared claims the account for each. */
  readonly stages: readonly string[];
}

/**
 * The prefix of the IAM names (one per account, in every region) by which an access stack claims
 * the account: `<prefix>-<stage>`. A stack without `-c sharedAccount=true` claims every stage's
 * name, a shared one only its own stage's, so a second stage's access stack fails to deploy in
 * the account ("already exists") unless both are shared. Deleting a marker removes the guard.
 */
export const ACCOUNT_STAGE_MARKER = 'PlantStore-account-stage';

/** The marker names an access stack claims (`ACCOUNT_STAGE_MARKER`), by the stage they claim. */
export const accountStageMarkers = (
  stage: string,
  stages: readonly string[],
  sharedAccount: boolean,
): Record<string, string> =>
  Object.fromEntries(
    [stage, ...(sharedAccount ? [] : stages.filter((other) => other !== stage))].map((claimed) => [
      claimed,
      `${ACCOUNT_STAGE_MARKER}-${claimed}`,
    ]),
  );

/**
 * A stage's GitHub role (`GitHub`), its policies (`ExecutionData`, `ExecutionCompute`,
 * `ExecutionNetwork`, `DeployBoundary`, `WorkloadBoundary`), the account's claim for the stage
 * (`AccountStage`) and the stage's `cdk bootstrap` command (output `BootstrapCommand`).
 */
export class StageDeployAccess extends Construct {
  readonly github: GitHubDeployRole;
  /** The CloudFormation execution policies: the data's, the compute's, the network's. */
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
    const execution = {
      executionData: ['ExecutionData', 'its data'],
      executionCompute: ['ExecutionCompute', 'its compute and API'],
      executionNetwork: ['ExecutionNetwork', "its static egress's network"],
    } as const;
    this.execution = Object.entries(execution).map(([kind, [policyId, what]]) =>
      policy(
        policyId,
        kind as keyof typeof execution,
        `What CloudFormation may do deploying ${stackName}, ${what} (cdk bootstrap --qualifier ${qualifier} --cloudformation-execution-policies)`,
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
    const shared = props.sharedAccount ?? false;
    // The own stage's claim keeps its id, so switching `sharedAccount` replaces no marker.
    for (const [claimed, name] of Object.entries(
      accountStageMarkers(stage, props.stages, shared),
    )) {
      const id = claimed === stage ? 'AccountStage' : `AccountStage-${claimed}`;
      new ManagedPolicy(this, id, {
        managedPolicyName: name,
        description: `This account holds the Plant Store stage ${stage}${shared ? ' and may hold another' : ' alone'}; a marker that grants nothing`,
        document: new PolicyDocument({
          statements: [
            new PolicyStatement({
              effect: Effect.DENY,
              notActions: ['sts:GetCallerIdentity'],
              resources: ['*'],
            }),
          ],
        }),
      });
    }
    new CfnOutput(scope, 'BootstrapCommand', {
      value: bootstrapCommand({
        stage,
        stackName,
        qualifier,
        account: Aws.ACCOUNT_ID,
        region: Aws.REGION,
        partition: Aws.PARTITION,
      }),
      description: `The stage ${stage}'s cdk bootstrap, in its own toolkit stack ${toolkitStackName(stage)}`,
    });
    new CfnOutput(scope, 'DeployRoleArn', {
      value: this.github.role.roleArn,
      description: `AWS_DEPLOY_ROLE_ARN of the GitHub environment ${stage}`,
    });
  }
}
