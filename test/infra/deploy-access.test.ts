/**
 * The GitHub deploy roles (lib/infra/deploy-access-stack.ts): one per stage, trusted only through
 * GitHub's OIDC provider for this repository's environment of that stage and the refs the stage
 * allows (prod: main or a v* tag), allowed only to assume the CDK bootstrap roles; cdk-nag clean.
 */
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addPlantStore } from '../../lib/infra/app';
import { githubSubject } from '../../lib/infra/constructs/github-deploy-role';
import { DEPLOY_ACCESS_STACK_NAME } from '../../lib/infra/deploy-access-stack';
import { DEPLOY_REFS, STAGES } from '../../lib/infra/stages';

const CONTEXT = JSON.parse(readFileSync(join(__dirname, '../../cdk.json'), 'utf8')).context;
const REPOSITORY = 'octo-org/plant-store';
const temporary: string[] = [];
afterAll(() => {
  for (const dir of temporary) rmSync(dir, { recursive: true, force: true });
});

/** The app as `cdk synth -c githubRepository=…` builds it (cdk-nag included), without bundling. */
function synth(context: Record<string, string> = {}) {
  temporary.push(mkdtempSync(join(tmpdir(), 'plant-store-access-')));
  const app = new App({
    outdir: temporary.at(-1)!,
    context: {
      ...CONTEXT,
      'aws:cdk:bundling-stacks': [],
      githubRepository: REPOSITORY,
      ...context,
    },
  });
  addPlantStore(app);
  const stack = app.node.findChild(DEPLOY_ACCESS_STACK_NAME);
  app.synth();
  return Template.fromStack(stack as never);
}

const template = synth();
const roles = () => Object.values(template.findResources('AWS::IAM::Role'));
const roleOf = (stage: string) =>
  roles().find((role) =>
    JSON.stringify(role.Properties.AssumeRolePolicyDocument).includes(`:environment:${stage}:`),
  )!;

it('has one role per stage and GitHub’s OIDC provider', () => {
  expect(roles()).toHaveLength(Object.keys(STAGES).length);
  template.hasResourceProperties('AWS::IAM::OIDCProvider', {
    Url: 'https://token.actions.githubusercontent.com',
    ClientIdList: ['sts.amazonaws.com'],
  });
});

it.each(Object.keys(STAGES) as (keyof typeof STAGES)[])(
  '%s: trusted only for this repository, its environment and its refs',
  (stage) => {
    const [statement, ...others] = roleOf(stage).Properties.AssumeRolePolicyDocument.Statement;
    expect(others).toEqual([]);
    expect(statement).toEqual({
      Effect: 'Allow',
      Action: 'sts:AssumeRoleWithWebIdentity',
      Principal: { Federated: { Ref: expect.stringMatching(/^GitHubOidc/) } },
      Condition: {
        StringEquals: { 'token.actions.githubusercontent.com:aud': 'sts.amazonaws.com' },
        StringLike: {
          'token.actions.githubusercontent.com:sub': DEPLOY_REFS[stage].map((ref) =>
            githubSubject(REPOSITORY, stage, ref),
          ),
        },
      },
    });
  },
);

it('prod trusts main and v* tags only; the subject carries the environment and the ref', () => {
  expect(DEPLOY_REFS.prod).toEqual(['refs/heads/main', 'refs/tags/v*']);
  expect(githubSubject(REPOSITORY, 'prod', 'refs/heads/main')).toBe(
    'repo:octo-org/plant-store:environment:prod:ref:refs/heads/main',
  );
});

it('may only assume the CDK bootstrap roles of its account and region', () => {
  const policies = Object.values(template.findResources('AWS::IAM::Policy'));
  expect(policies).toHaveLength(Object.keys(STAGES).length);
  for (const policy of policies) {
    expect(policy.Properties.PolicyDocument.Statement).toEqual([
      {
        Effect: 'Allow',
        Action: 'sts:AssumeRole',
        Resource: ['deploy', 'file-publishing', 'lookup'].map((role) => ({
          'Fn::Join': [
            '',
            [
              'arn:',
              { Ref: 'AWS::Partition' },
              ':iam::',
              { Ref: 'AWS::AccountId' },
              `:role/cdk-hnb659fds-${role}-role-`,
              { Ref: 'AWS::AccountId' },
              '-',
              { Ref: 'AWS::Region' },
            ],
          ],
        })),
      },
    ]);
  }
  template.resourceCountIs('AWS::IAM::ManagedPolicy', 0);
  template.allResourcesProperties('AWS::IAM::Role', { ManagedPolicyArns: Match.absent() });
});

it("uses the account's provider when given, and another bootstrap qualifier", () => {
  const arn = 'arn:aws:iam::123456789012:oidc-provider/token.actions.githubusercontent.com';
  const other = synth({ githubOidcProviderArn: arn, bootstrapQualifier: 'team1' });
  other.resourceCountIs('AWS::IAM::OIDCProvider', 0);
  expect(JSON.stringify(other.toJSON())).toContain(`"Federated":"${arn}"`);
  expect(JSON.stringify(other.toJSON())).toContain(':role/cdk-team1-deploy-role-');
});

it('refuses a repository that is not <owner>/<name>', () => {
  expect(() => synth({ githubRepository: 'plant-store' })).toThrow(
    'repository must be <owner>/<name>, got "plant-store"',
  );
});
