/**
 * The role a GitHub Actions job assumes to deploy one stage: trusted only through GitHub's OIDC
 * provider, only for this repository (by its immutable id, whichever subject form GitHub writes),
 * only in the stage's environment, only from the refs the stage allows and only in the Deploy
 * workflow of those refs; allowed nothing but assuming its stage's CDK bootstrap roles.
 */
import { Duration } from 'aws-cdk-lib';
import { PolicyStatement, Role, WebIdentityPrincipal } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { CDK_BOOTSTRAP_ROLES, bootstrapRoleArn } from '../bootstrap';

/** GitHub's OIDC issuer, without the scheme: the prefix of its claims' IAM condition keys. */
export const GITHUB_OIDC_HOST = 'token.actions.githubusercontent.com';

/** A GitHub repository, by name and by the ids that never change or get reused. */
export interface GitHubRepository {
  /** The owner's login (`octo-org`). */
  readonly owner: string;
  /** The repository's name (`plant-store`). */
  readonly name: string;
  /** The owner's numeric id (`gh api repos/<owner>/<name> --jq .owner.id`). */
  readonly ownerId: string;
  /** The repository's numeric id (`gh api repos/<owner>/<name> --jq .id`). */
  readonly id: string;
}

/**
 * The repository named by `-c githubRepository=` and its ids: either `<owner>/<name>` with
 * `ownerId` and `id` given apart, or GitHub's immutable form `<owner>@<ownerId>/<name>@<id>`
 * (the subject prefix `gh api repos/<owner>/<name>/actions/oidc/customization/sub` reports).
 */
export function parseRepository(
  text: string,
  ids: { ownerId?: string; id?: string } = {},
): GitHubRepository {
  const match = /^([\w.-]+?)(?:@(\d+))?\/([\w.-]+?)(?:@(\d+))?$/.exec(text);
  if (!match) {
    throw new Error(
      `repository must be <owner>/<name> or <owner>@<ownerId>/<name>@<repositoryId>, got ${JSON.stringify(text)}`,
    );
  }
  const [, owner, ownerIdInName, name, idInName] = match as unknown as string[];
  const ownerId = ownerIdInName ?? ids.ownerId;
  const id = idInName ?? ids.id;
  for (const [label, value] of [
    ['githubOwnerId', ownerId],
    ['githubRepositoryId', id],
  ] as const) {
    if (value === undefined || !/^\d+$/.test(value)) {
      throw new Error(
        `${label} must be the repository's numeric ${label === 'githubOwnerId' ? 'owner id' : 'id'} (gh api repos/${owner}/${name} --jq '.owner.id, .id'), got ${JSON.stringify(value ?? null)}`,
      );
    }
  }
  return { owner: owner!, name: name!, ownerId: ownerId!, id: id! };
}

/**
 * The `sub` claims GitHub writes for a job in `environment` (its default subject template):
 * `repo:<owner>/<name>:environment:<env>`, or, for a repository on immutable subject claims
 * (created or renamed from 15 July 2026, or opted in), `repo:<owner>@<ownerId>/<name>@<id>:…`.
 */
export function githubSubjects(repository: GitHubRepository, environment: string): string[] {
  const { owner, name, ownerId, id } = repository;
  return [
    `repo:${owner}/${name}:environment:${environment}`,
    `repo:${owner}@${ownerId}/${name}@${id}:environment:${environment}`,
  ];
}

/** Settings of one stage's deploy role. */
export interface GitHubDeployRoleProps {
  /** The ARN of GitHub's OIDC provider in this account. */
  readonly providerArn: string;
  /** The repository whose Deploy workflow deploys. */
  readonly repository: GitHubRepository;
  /** The GitHub environment the deploy job names, the stage's name. */
  readonly environment: string;
  /** The refs a deployment may run from, as `StringLike` patterns (`refs/heads/main`). */
  readonly refs: readonly string[];
  /** The workflow file whose jobs may assume the role (`.github/workflows/deploy.yml`). */
  readonly workflow: string;
  /** The stage's bootstrap qualifier (`cdk bootstrap --qualifier`). */
  readonly qualifier: string;
}

/** One stage's deploy role (`Role`). */
export class GitHubDeployRole extends Construct {
  readonly role: Role;

  constructor(scope: Construct, id: string, props: GitHubDeployRoleProps) {
    super(scope, id);
    if (props.refs.length === 0 || props.refs.some((ref) => !ref.startsWith('refs/'))) {
      throw new Error(
        `the ${props.environment} deploy role needs refs like refs/heads/main, got ${JSON.stringify(props.refs)}`,
      );
    }
    const { owner, name } = props.repository;
    const claim = (key: string) => `${GITHUB_OIDC_HOST}:${key}`;
    this.role = new Role(this, 'Role', {
      description: `GitHub Actions deploys of ${owner}/${name}, environment ${props.environment}, from ${props.refs.join(' or ')}`,
      maxSessionDuration: Duration.hours(1),
      // The subject binds repository and environment; the repository id binds them even where
      // the subject still holds names (a deleted repository's name can be taken again); the ref
      // and the job's workflow (file and ref) keep out any other branch, tag or workflow.
      assumedBy: new WebIdentityPrincipal(props.providerArn, {
        StringEquals: {
          [claim('aud')]: 'sts.amazonaws.com',
          [claim('sub')]: githubSubjects(props.repository, props.environment),
          [claim('repository_id')]: props.repository.id,
          [claim('environment')]: props.environment,
        },
        StringLike: {
          [claim('ref')]: [...props.refs],
          [claim('job_workflow_ref')]: props.refs.map(
            (ref) => `${owner}/${name}/${props.workflow}@${ref}`,
          ),
        },
      }),
    });
    // Everything a deployment does, it does through these roles (CloudFormation's execution
    // role among them, passed by the deploy role); this role itself can read or change nothing.
    this.role.addToPolicy(
      new PolicyStatement({
        actions: ['sts:AssumeRole'],
        resources: CDK_BOOTSTRAP_ROLES.map((role) =>
          bootstrapRoleArn({ qualifier: props.qualifier }, role),
        ),
      }),
    );
  }
}
