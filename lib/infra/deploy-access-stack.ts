/**
 * What lets GitHub Actions deploy Plant Store, deployed by an administrator with their own
 * credentials into the account that holds a stage, before that stage's `cdk bootstrap`
 * (docs/guides/deploying.md, "Setting up deployments"): GitHub's OIDC provider (`PlantStore-github-oidc`,
 * once per account, unless the account has one) and, per stage, `PlantStore-deploy-access-<stage>`
 * with the GitHub role and the policies the stage's bootstrap and stack are held to. One stack per
 * stage, so that each account holds only its own stage's access, and each template stays under
 * what CloudFormation takes without an asset bucket. The Deploy workflow reads the role's ARN from
 * the stage's GitHub environment (`AWS_DEPLOY_ROLE_ARN`).
 */
import { Aws, LegacyStackSynthesizer, Stack, type StackProps } from 'aws-cdk-lib';
import { OidcProviderNative } from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import { GITHUB_OIDC_HOST, type GitHubRepository } from './constructs/github-deploy-role';
import { StageDeployAccess } from './constructs/stage-deploy-access';
import { DEPLOY_REFS, DEPLOY_WORKFLOW, STAGES, type StageName } from './stages';

/** The OIDC provider's stack. */
export const GITHUB_OIDC_STACK_NAME = 'PlantStore-github-oidc';

/**
 * A stage's access stack. Not `<stage stack>-…`: a stage's policies reach the resources named
 * after its own stack, and must not reach its own access.
 */
export const deployAccessStackName = (stage: StageName) => `PlantStore-deploy-access-${stage}`;

/** Deployed with the administrator's credentials before any bootstrap exists; no asset. */
const withoutBootstrap = (props: StackProps): StackProps => ({
  synthesizer: new LegacyStackSynthesizer(),
  ...props,
});

/** GitHub's OIDC provider, which an account holds once (for every repository it trusts). */
export class GitHubOidcStack extends Stack {
  constructor(scope: Construct, id: string, props: StackProps = {}) {
    super(scope, id, {
      description: "GitHub Actions' OIDC provider, which the Plant Store deploy roles trust",
      ...withoutBootstrap(props),
    });
    new OidcProviderNative(this, 'GitHubOidc', {
      url: `https://${GITHUB_OIDC_HOST}`,
      clientIds: ['sts.amazonaws.com'],
    });
  }
}

/** Settings of a stage's deploy access. */
export interface DeployAccessStackProps extends StackProps {
  /** The stage. */
  readonly stage: StageName;
  /** The repository whose Deploy workflow may deploy. */
  readonly repository: GitHubRepository;
  /**
   * Whether the stage's stack has the webhook's static egress (`-c webhookStaticIps=true`).
   * @default false
   */
  readonly webhookStaticIps?: boolean;
  /**
   * Whether the account may hold the other stage too (`-c sharedAccount=true`).
   * @default false - one stage per account, enforced at deploy
   */
  readonly sharedAccount?: boolean;
}

/** One stage's access (`Access`): its GitHub role and its policies. */
export class DeployAccessStack extends Stack {
  readonly access: StageDeployAccess;

  constructor(scope: Construct, id: string, props: DeployAccessStackProps) {
    const { stage, repository } = props;
    super(scope, id, {
      description: `GitHub OIDC deploy access of ${repository.owner}/${repository.name} to the Plant Store stage ${stage}`,
      ...withoutBootstrap(props),
    });
    this.access = new StageDeployAccess(this, 'Access', {
      stage,
      stackName: STAGES[stage].stackName,
      qualifier: STAGES[stage].qualifier,
      refs: DEPLOY_REFS[stage],
      workflow: DEPLOY_WORKFLOW,
      // Its ARN is the URL's: the provider of PlantStore-github-oidc, or the account's own.
      providerArn: `arn:${Aws.PARTITION}:iam::${Aws.ACCOUNT_ID}:oidc-provider/${GITHUB_OIDC_HOST}`,
      repository,
      staticEgress: props.webhookStaticIps,
      sharedAccount: props.sharedAccount,
      stages: Object.keys(STAGES),
    });
  }
}
