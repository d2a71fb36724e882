/**
 * What lets GitHub Actions deploy Plant Store, deployed once per account by an administrator
 * (`npx cdk deploy PlantStore-deploy-access -c githubRepository=<owner>/<name>`): GitHub's OIDC
 * provider (or the account's existing one) and one deploy role per stage, each trusted only from
 * the refs its stage allows. The deploy workflow reads the role's ARN from the stage's GitHub
 * environment (`AWS_DEPLOY_ROLE_ARN`).
 */
import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import { OidcProviderNative } from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import { GITHUB_OIDC_HOST, GitHubDeployRole } from './constructs/github-deploy-role';
import { DEPLOY_REFS, STAGES, type StageName } from './stages';

/** The stack's name. */
export const DEPLOY_ACCESS_STACK_NAME = 'PlantStore-deploy-access';

/** Settings of the deploy access. */
export interface DeployAccessStackProps extends StackProps {
  /** `<owner>/<name>` of the repository whose Deploy workflow may deploy. */
  readonly repository: string;
  /**
   * The account's GitHub OIDC provider, when it already has one (an account holds one per URL).
   * @default - the stack creates it
   */
  readonly oidcProviderArn?: string;
  /**
   * The CDK bootstrap qualifier of the target account and region.
   * @default - CDK's default qualifier
   */
  readonly qualifier?: string;
}

/** The OIDC provider and a deploy role per stage of `STAGES`. */
export class DeployAccessStack extends Stack {
  readonly roles: Readonly<Record<StageName, GitHubDeployRole>>;

  constructor(scope: Construct, id: string, props: DeployAccessStackProps) {
    super(scope, id, {
      description: `GitHub OIDC deploy roles of ${props.repository}, one per Plant Store stage`,
      ...props,
    });
    const providerArn =
      props.oidcProviderArn ??
      new OidcProviderNative(this, 'GitHubOidc', {
        url: `https://${GITHUB_OIDC_HOST}`,
        clientIds: ['sts.amazonaws.com'],
      }).oidcProviderArn;
    this.roles = Object.fromEntries(
      (Object.keys(STAGES) as StageName[]).map((stage) => {
        const deploy = new GitHubDeployRole(this, `Deploy-${stage}`, {
          providerArn,
          repository: props.repository,
          environment: stage,
          refs: DEPLOY_REFS[stage],
          qualifier: props.qualifier,
        });
        new CfnOutput(this, `DeployRoleArn-${stage}`, {
          value: deploy.role.roleArn,
          description: `AWS_DEPLOY_ROLE_ARN of the GitHub environment ${stage}`,
        });
        return [stage, deploy];
      }),
    ) as Record<StageName, GitHubDeployRole>;
  }
}
