/**
 * The role a GitHub Actions job assumes to deploy one stage: trusted only through GitHub's OIDC
 * provider, only for this repository's environment of that stage and only from the refs the stage
 * allows, and allowed nothing but assuming the CDK bootstrap roles of its own account and region.
 */
import { DefaultStackSynthesizer, Duration, Stack } from 'aws-cdk-lib';
import { PolicyStatement, Role, WebIdentityPrincipal } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';

/** GitHub's OIDC issuer, without the scheme: the prefix of its claims' IAM condition keys. */
export const GITHUB_OIDC_HOST = 'token.actions.githubusercontent.com';

/**
 * The `sub` claim GitHub writes once the repository's subject template is
 * `{"use_default": false, "include_claim_keys": ["repo", "context", "ref"]}`: the default
 * (`repo:<owner>/<name>:environment:<stage>`) never names the ref, and IAM can read no other
 * claim of GitHub's, so the ref must be in `sub`. docs/operations.md sets the template.
 */
export function githubSubject(repository: string, environment: string, ref: string): string {
  return `repo:${repository}:environment:${environment}:ref:${ref}`;
}

/** The CDK bootstrap roles a deployment assumes (`cdk bootstrap`'s names, per qualifier). */
export const CDK_BOOTSTRAP_ROLES = ['deploy', 'file-publishing', 'lookup'] as const;

/** Settings of one stage's deploy role. */
export interface GitHubDeployRoleProps {
  /** The ARN of GitHub's OIDC provider in this account. */
  readonly providerArn: string;
  /** `<owner>/<name>` of the repository whose workflow deploys. */
  readonly repository: string;
  /** The GitHub environment the deploy job names, the stage's name. */
  readonly environment: string;
  /**
   * The refs a deployment may run from, as IAM `StringLike` patterns (`refs/heads/main`,
   * `refs/tags/v*`, or `*` for any).
   */
  readonly refs: readonly string[];
  /**
   * The bootstrap qualifier (`cdk bootstrap --qualifier`).
   * @default DefaultStackSynthesizer.DEFAULT_QUALIFIER
   */
  readonly qualifier?: string;
}

/** One stage's deploy role (`Role`). */
export class GitHubDeployRole extends Construct {
  readonly role: Role;

  constructor(scope: Construct, id: string, props: GitHubDeployRoleProps) {
    super(scope, id);
    if (!/^[\w.-]+\/[\w.-]+$/.test(props.repository)) {
      throw new Error(`repository must be <owner>/<name>, got ${JSON.stringify(props.repository)}`);
    }
    if (props.refs.length === 0) {
      throw new Error(`the ${props.environment} deploy role needs at least one ref`);
    }
    const { account, region, partition } = Stack.of(this);
    const qualifier = props.qualifier ?? DefaultStackSynthesizer.DEFAULT_QUALIFIER;
    this.role = new Role(this, 'Role', {
      description: `GitHub Actions deploys of ${props.repository}, environment ${props.environment}, from ${props.refs.join(' or ')}`,
      maxSessionDuration: Duration.hours(1),
      assumedBy: new WebIdentityPrincipal(props.providerArn, {
        StringEquals: { [`${GITHUB_OIDC_HOST}:aud`]: 'sts.amazonaws.com' },
        StringLike: {
          [`${GITHUB_OIDC_HOST}:sub`]: props.refs.map((ref) =>
            githubSubject(props.repository, props.environment, ref),
          ),
        },
      }),
    });
    // Everything a deployment does, it does through these roles (CloudFormation's execution
    // role among them); this role itself can read or change nothing else.
    this.role.addToPolicy(
      new PolicyStatement({
        actions: ['sts:AssumeRole'],
        resources: CDK_BOOTSTRAP_ROLES.map(
          (role) =>
            `arn:${partition}:iam::${account}:role/cdk-${qualifier}-${role}-role-${account}-${region}`,
        ),
      }),
    );
  }
}
