/**
 * The GitHub deploy roles (lib/infra/deploy-access-stack.ts), one access stack per stage: each
 * role trusted only through GitHub's OIDC provider, for this repository by its immutable id
 * whichever subject form GitHub writes, for its stage's environment, from the refs the stage
 * allows (prod: main only; dev: branches, never tags or pull requests) and in the Deploy
 * workflow of those refs; and allowed only to assume its own stage's deploy and publishing roles,
 * which the other stage's role cannot reach (never a lookup role, which reads the account). Each
 * access stack claims its account for its stage, and prints its stage's bootstrap command.
 */
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { bootstrapCommand } from '../../lib/infra/bootstrap';
import { ACCOUNT_STAGE_MARKER } from '../../lib/infra/constructs/stage-deploy-access';
import { githubSubjects, parseRepository } from '../../lib/infra/constructs/github-deploy-role';
import { GITHUB_OIDC_STACK_NAME, deployAccessStackName } from '../../lib/infra/deploy-access-stack';
import { DEPLOY_REFS, DEPLOY_WORKFLOW, STAGES, type StageName } from '../../lib/infra/stages';
import { synthTemplates } from '../support/cdk-app';

const NAMES = {
  githubRepository: 'octo-org/plant-store',
  githubOwnerId: '111',
  githubRepositoryId: '222',
};
const STAGE_NAMES = Object.keys(STAGES) as StageName[];
const byNames = synthTemplates(NAMES);
// The same repository given in GitHub's immutable form: the same access.
const byIds = synthTemplates({ githubRepository: 'octo-org@111/plant-store@222' });

const roleOf = (stage: StageName, templates = byNames) => {
  const roles = Object.values(
    templates[deployAccessStackName(stage)]!.findResources('AWS::IAM::Role'),
  );
  expect(roles).toHaveLength(1);
  return roles[0]!;
};
const claim = (key: string) => `token.actions.githubusercontent.com:${key}`;

it('synthesizes the OIDC provider apart, and one access stack per stage', () => {
  expect(Object.keys(byNames).sort()).toEqual(
    ['PlantStore', GITHUB_OIDC_STACK_NAME, ...STAGE_NAMES.map(deployAccessStackName)].sort(),
  );
  byNames[GITHUB_OIDC_STACK_NAME]!.hasResourceProperties('AWS::IAM::OIDCProvider', {
    Url: 'https://token.actions.githubusercontent.com',
    ClientIdList: ['sts.amazonaws.com'],
  });
  for (const stage of STAGE_NAMES) {
    byNames[deployAccessStackName(stage)]!.resourceCountIs('AWS::IAM::OIDCProvider', 0);
  }
});

describe.each(STAGE_NAMES)('%s', (stage) => {
  const statement = () => {
    const [only, ...others] = roleOf(stage).Properties.AssumeRolePolicyDocument.Statement;
    expect(others).toEqual([]);
    return only;
  };

  it('trusts GitHub for this repository (both subject forms, its id), its environment, its refs and the Deploy workflow', () => {
    expect(statement()).toEqual({
      Effect: 'Allow',
      Action: 'sts:AssumeRoleWithWebIdentity',
      Principal: {
        Federated: {
          'Fn::Join': [
            '',
            [
              'arn:',
              { Ref: 'AWS::Partition' },
              ':iam::',
              { Ref: 'AWS::AccountId' },
              ':oidc-provider/token.actions.githubusercontent.com',
            ],
          ],
        },
      },
      Condition: {
        StringEquals: {
          [claim('aud')]: 'sts.amazonaws.com',
          [claim('sub')]: [
            `repo:octo-org/plant-store:environment:${stage}`,
            `repo:octo-org@111/plant-store@222:environment:${stage}`,
          ],
          [claim('repository_id')]: '222',
          [claim('environment')]: stage,
        },
        StringLike: {
          [claim('ref')]: DEPLOY_REFS[stage],
          [claim('job_workflow_ref')]: DEPLOY_REFS[stage].map(
            (ref) => `octo-org/plant-store/${DEPLOY_WORKFLOW}@${ref}`,
          ),
        },
      },
    });
  });

  it('is the same whether the repository is given by names and ids or in the immutable form', () => {
    expect(roleOf(stage, byIds).Properties.AssumeRolePolicyDocument).toEqual(
      roleOf(stage).Properties.AssumeRolePolicyDocument,
    );
  });

  it('bounds its refs: branches at most, never a tag, a pull request or any ref', () => {
    for (const ref of DEPLOY_REFS[stage]) expect(ref).toMatch(/^refs\/heads\/[\w*/-]+$/);
    const like = JSON.stringify(statement().Condition.StringLike);
    expect(like).not.toMatch(/refs\/tags|refs\/pull|"\*"/);
  });

  it('may only assume its own stage’s deploy and publishing roles (not its lookup role), and has no other policy', () => {
    const template = byNames[deployAccessStackName(stage)]!;
    const policies = Object.values(template.findResources('AWS::IAM::Policy'));
    expect(policies).toHaveLength(1);
    expect(policies[0]!.Properties.PolicyDocument.Statement).toEqual([
      {
        Effect: 'Allow',
        Action: 'sts:AssumeRole',
        Resource: ['deploy', 'file-publishing'].map((role) => ({
          'Fn::Join': [
            '',
            [
              'arn:',
              { Ref: 'AWS::Partition' },
              ':iam::',
              { Ref: 'AWS::AccountId' },
              `:role/cdk-${STAGES[stage].qualifier}-${role}-role-`,
              { Ref: 'AWS::AccountId' },
              '-',
              { Ref: 'AWS::Region' },
            ],
          ],
        })),
      },
    ]);
    template.allResourcesProperties('AWS::IAM::Role', { ManagedPolicyArns: Match.absent() });
  });
});

it('prod trusts main only; dev trusts this repository’s branches', () => {
  expect(DEPLOY_REFS).toEqual({ dev: ['refs/heads/*'], prod: ['refs/heads/main'] });
});

it('the stages’ roles reach disjoint bootstrap roles: each stage has its own qualifier', () => {
  const reach = (stage: StageName) =>
    JSON.stringify(
      Object.values(byNames[deployAccessStackName(stage)]!.findResources('AWS::IAM::Policy')).map(
        (policy) => policy.Properties.PolicyDocument,
      ),
    ).match(/:role\/cdk-[\w-]+?-role-/g)!;
  const [dev, prod] = [reach('dev'), reach('prod')];
  expect(dev).toHaveLength(2);
  expect(prod).toHaveLength(2);
  expect(JSON.stringify([dev, prod])).not.toContain('lookup');
  expect(dev.filter((role) => prod.includes(role))).toEqual([]);
  expect(new Set(STAGE_NAMES.map((stage) => STAGES[stage].qualifier)).size).toBe(
    STAGE_NAMES.length,
  );
});

describe('one stage per account', () => {
  const shared = synthTemplates({ ...NAMES, sharedAccount: 'true' });
  const markersOf = (templates: Record<string, Template>, stage: StageName) =>
    Object.values(
      templates[deployAccessStackName(stage)]!.findResources('AWS::IAM::ManagedPolicy'),
    ).filter((policy) =>
      String(policy.Properties.ManagedPolicyName).startsWith('PlantStore-account'),
    );
  const namesOf = (templates: Record<string, Template>, stage: StageName) =>
    markersOf(templates, stage).map((policy) => String(policy.Properties.ManagedPolicyName));

  it('an access stack claims the account for every stage under IAM names; they grant nothing', () => {
    for (const stage of STAGE_NAMES) {
      expect(namesOf(byNames, stage).sort()).toEqual(
        STAGE_NAMES.map((claimed) => `${ACCOUNT_STAGE_MARKER}-${claimed}`).sort(),
      );
      // It grants nothing to whoever might attach it.
      for (const marker of markersOf(byNames, stage))
        expect(marker.Properties.PolicyDocument.Statement).toEqual([
          { Effect: 'Deny', NotAction: 'sts:GetCallerIdentity', Resource: '*' },
        ]);
    }
  });

  // IAM names are unique in an account across its regions: the second stack's create fails.
  it.each([
    [false, false, true],
    [true, false, true],
    [false, true, true],
    [true, true, false],
  ])(
    'dev shared %p, prod shared %p: the two access stacks collide in one account: %p',
    (devShared, prodShared, collide) => {
      const dev = namesOf(devShared ? shared : byNames, 'dev');
      const prod = namesOf(prodShared ? shared : byNames, 'prod');
      expect(dev.some((name) => prod.includes(name))).toBe(collide);
    },
  );

  it('-c sharedAccount=true: each claims only its own stage’s name', () => {
    expect(STAGE_NAMES.map((stage) => namesOf(shared, stage))).toEqual(
      STAGE_NAMES.map((stage) => [`${ACCOUNT_STAGE_MARKER}-${stage}`]),
    );
  });
});

it.each(STAGE_NAMES)(
  '%s: the access stack prints the stage’s cdk bootstrap, in its own toolkit stack',
  (stage) => {
    const output = byNames[deployAccessStackName(stage)]!.findOutputs('BootstrapCommand');
    const join = Object.values(output)[0]!.Value['Fn::Join'] as [string, unknown[]];
    const pseudo: Record<string, string> = {
      'AWS::AccountId': '123456789012',
      'AWS::Region': 'eu-west-1',
      'AWS::Partition': 'aws',
    };
    const command = join[1]
      .map((part) => (typeof part === 'string' ? part : pseudo[(part as { Ref: string }).Ref]))
      .join(join[0]);
    expect(command).toBe(
      bootstrapCommand({ stage, ...STAGES[stage], account: '123456789012', region: 'eu-west-1' }),
    );
    expect(command).toContain(` --toolkit-stack-name PlantStoreToolkit-${stage} `);
  },
);

it('writes the subjects GitHub writes for a job in an environment, by names and by ids', () => {
  expect(
    githubSubjects(parseRepository('octo-org/plant-store', { ownerId: '1', id: '2' }), 'prod'),
  ).toEqual([
    'repo:octo-org/plant-store:environment:prod',
    'repo:octo-org@1/plant-store@2:environment:prod',
  ]);
});

it.each([
  [
    { githubRepository: 'plant-store' },
    'repository must be <owner>/<name> or <owner>@<ownerId>/<name>@<repositoryId>, got "plant-store"',
  ],
  [
    { githubRepository: 'octo-org/plant-store' },
    "githubOwnerId must be the repository's numeric owner id (gh api repos/octo-org/plant-store --jq '.owner.id, .id'), got null",
  ],
  [
    { githubRepository: 'octo-org/plant-store', githubOwnerId: '111', githubRepositoryId: 'x' },
    "githubRepositoryId must be the repository's numeric id (gh api repos/octo-org/plant-store --jq '.owner.id, .id'), got \"x\"",
  ],
])('refuses %p, saying what it needs', (context, message) => {
  expect(() => synthTemplates(context)).toThrow(message);
});
