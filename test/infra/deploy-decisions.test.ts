/**
 * What a stage's deploy policies decide for the calls CloudFormation and the CDK CLI make, judged
 * as IAM judges them (an allow and no deny; a role's policies and its permissions boundary must
 * both allow): the dev stage's execution role under its deploy boundary creates and changes only
 * dev's network, event source mappings and keys, never an untagged or prod's one; the boundary
 * alone keeps the tag conditions (any bootstrap role is held to them) and refuses an import.
 */
import {
  STAGE_POLICIES,
  policyDocument,
  type DeployPolicyScope,
} from '../../lib/infra/deploy-policies';
import { ACCOUNT_STAGE_MARKER } from '../../lib/infra/constructs/stage-deploy-access';
import { STAGES, STAGE_TAG } from '../../lib/infra/stages';

const AWS = { partition: 'aws', region: 'eu-west-1', account: '123456789012' };
const SCOPE: DeployPolicyScope = {
  stage: 'dev',
  stackName: STAGES.dev.stackName,
  qualifier: STAGES.dev.qualifier,
  staticEgress: true,
  aws: AWS,
};

interface Statement {
  Effect: 'Allow' | 'Deny';
  Action?: string | string[];
  NotAction?: string | string[];
  Resource: string | string[];
  Condition?: Record<string, Record<string, string | string[]>>;
}
/** One call: its action, the resource IAM authorizes it on, and the request's context keys. */
interface Call {
  action: string;
  resource: string;
  context?: Record<string, string | string[]>;
}

const list = <T>(value: T | T[] | undefined) => (value === undefined ? [] : [value].flat());
const glob = (pattern: string, flags = '') =>
  new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replaceAll('*', '.*')}$`, flags);

/** Whether one condition operator holds for the call's context (the operators the policies use). */
function holds(operator: string, key: string, expected: string[], call: Call): boolean {
  const value = call.context?.[key];
  const ifExists = operator.endsWith('IfExists');
  const base = operator.replace(/IfExists$/, '');
  if (base === 'Null') return (value === undefined) === (expected[0] === 'true');
  if (value === undefined) return ifExists;
  const values = list(value);
  const equal = (v: string) => expected.includes(v);
  const like = (v: string) => expected.some((p) => glob(p).test(v));
  switch (base) {
    case 'StringEquals':
    case 'ArnEquals':
      return values.length === 1 && equal(values[0]!);
    case 'StringLike':
    case 'ArnLike':
      return values.length === 1 && like(values[0]!);
    case 'ForAnyValue:StringLike':
      return values.some(like);
    default:
      throw new Error(`no evaluation written for the operator ${operator}`);
  }
}

function applies(statement: Statement, call: Call): boolean {
  const action = (patterns: string[]) => patterns.some((p) => glob(p, 'i').test(call.action));
  const actionMatches = statement.NotAction
    ? !action(list(statement.NotAction))
    : action(list(statement.Action));
  return (
    actionMatches &&
    list(statement.Resource).some((p) => glob(p).test(call.resource)) &&
    Object.entries(statement.Condition ?? {}).every(([operator, keys]) =>
      Object.entries(keys).every(([key, expected]) => holds(operator, key, list(expected), call)),
    )
  );
}

/** IAM's decision on one policy set: some statement allows, none denies. */
const allows = (statements: readonly Statement[], call: Call) =>
  statements.some((s) => s.Effect === 'Allow' && applies(s, call)) &&
  !statements.some((s) => s.Effect === 'Deny' && applies(s, call));

const statementsOf = (policy: keyof typeof STAGE_POLICIES, scope = SCOPE) =>
  (policyDocument(policy, scope).toJSON() as { Statement: Statement[] }).Statement;

const boundary = statementsOf('deployBoundary');
const execution = [
  ...statementsOf('executionData'),
  ...statementsOf('executionCompute'),
  ...statementsOf('executionNetwork'),
];
/** CloudFormation's execution role: its policies, under the deploy boundary. */
const cloudFormation = (call: Call) => allows(execution, call) && allows(boundary, call);

const ec2 = (resource: string) => `arn:aws:ec2:eu-west-1:123456789012:${resource}`;
const tags = (stage: string | undefined): Record<string, string> =>
  stage === undefined ? {} : { [`aws:ResourceTag/${STAGE_TAG}`]: stage };
const requestTag = { [`aws:RequestTag/${STAGE_TAG}`]: 'dev' };

describe('the static egress’s network (dev’s execution role under its boundary)', () => {
  it.each([
    ['dev', true],
    [undefined, false],
    ['prod', false],
  ])('changes or deletes a VPC tagged %p: %p', (stage, allowed) => {
    for (const action of ['ec2:DeleteVpc', 'ec2:ModifyVpcAttribute', 'ec2:DeleteTags']) {
      const call = { action, resource: ec2('vpc/vpc-0abc'), context: tags(stage) };
      expect([action, cloudFormation(call)]).toEqual([action, allowed]);
    }
  });

  it('tags a piece (a security group apart) only as it creates it, never an untagged one that exists', () => {
    const vpc = ec2('vpc/vpc-0abc');
    expect(
      cloudFormation({
        action: 'ec2:CreateTags',
        resource: vpc,
        context: { ...requestTag, 'ec2:CreateAction': 'CreateVpc' },
      }),
    ).toBe(true);
    expect(cloudFormation({ action: 'ec2:CreateTags', resource: vpc, context: requestTag })).toBe(
      false,
    );
  });

  // CloudFormation sends CreateSecurityGroup without tags, then CreateTags (no ec2:CreateAction).
  it('creates a security group untagged in dev’s VPC only, then tags it dev’s, and uses it', () => {
    const group = ec2('security-group/sg-0abc');
    const create = (vpcStage: string | undefined) =>
      cloudFormation({ action: 'ec2:CreateSecurityGroup', resource: ec2('security-group/*') }) &&
      cloudFormation({
        action: 'ec2:CreateSecurityGroup',
        resource: ec2('vpc/vpc-0abc'),
        context: tags(vpcStage),
      });
    expect([create('dev'), create('prod'), create(undefined)]).toEqual([true, false, false]);
    const tag = (stage: string, existing: string | undefined) =>
      cloudFormation({
        action: 'ec2:CreateTags',
        resource: group,
        context: { [`aws:RequestTag/${STAGE_TAG}`]: stage, ...tags(existing) },
      });
    expect([tag('dev', undefined), tag('prod', undefined), tag('dev', 'prod')]).toEqual([
      true,
      false,
      false,
    ]);
    // Only a security group is tagged after: an untagged VPC is not.
    expect(
      cloudFormation({
        action: 'ec2:CreateTags',
        resource: ec2('vpc/vpc-0abc'),
        context: requestTag,
      }),
    ).toBe(false);
    for (const action of ['ec2:RevokeSecurityGroupEgress', 'ec2:DeleteSecurityGroup']) {
      const use = (stage: string | undefined) =>
        cloudFormation({ action, resource: group, context: tags(stage) });
      expect([action, use('dev'), use(undefined), use('prod')]).toEqual([
        action,
        true,
        false,
        false,
      ]);
    }
  });

  it('creates a subnet tagged with the stage, in dev’s VPC only', () => {
    const subnet = { action: 'ec2:CreateSubnet', resource: ec2('subnet/*'), context: requestTag };
    expect(cloudFormation(subnet)).toBe(true);
    expect(cloudFormation({ ...subnet, context: {} })).toBe(false);
    const inVpc = (stage: string | undefined) =>
      cloudFormation({
        action: 'ec2:CreateSubnet',
        resource: ec2('vpc/vpc-0abc'),
        context: { ...requestTag, ...tags(stage) },
      });
    expect([inVpc('dev'), inVpc('prod'), inVpc(undefined)]).toEqual([true, false, false]);
  });
});

describe('event source mappings and keys on a fresh stage', () => {
  const fn = (stack: string) =>
    `arn:aws:lambda:eu-west-1:123456789012:function:${stack}-FanOutFunction1A2B3C-abc`;

  it('creates an event source mapping (no resource) for dev’s functions only', () => {
    const create = (stack: string) =>
      cloudFormation({
        action: 'lambda:CreateEventSourceMapping',
        resource: '*',
        context: { 'lambda:FunctionArn': fn(stack) },
      });
    expect(create(STAGES.dev.stackName)).toBe(true);
    expect(create(STAGES.prod.stackName)).toBe(false);
  });

  it('tags a key as CreateKey makes it, and never re-tags prod’s', () => {
    const key = 'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';
    expect(cloudFormation({ action: 'kms:CreateKey', resource: '*', context: requestTag })).toBe(
      true,
    );
    // CreateKey's tags: kms:TagResource on the account's keys, the new one untagged as yet.
    expect(cloudFormation({ action: 'kms:TagResource', resource: key, context: requestTag })).toBe(
      true,
    );
    expect(
      cloudFormation({
        action: 'kms:TagResource',
        resource: key,
        context: { ...requestTag, ...tags('prod') },
      }),
    ).toBe(false);
  });
});

describe('the deploy boundary, which holds every bootstrap role of the stage', () => {
  const prodKey = {
    resource: 'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab',
    context: tags('prod'),
  };

  it('keeps the execution policies’ tag conditions: no role of dev reaches prod’s key or API', () => {
    for (const action of ['kms:PutKeyPolicy', 'kms:ScheduleKeyDeletion', 'kms:Decrypt']) {
      expect([action, allows(boundary, { action, ...prodKey })]).toEqual([action, false]);
      expect([action, allows(boundary, { action, ...prodKey, context: tags('dev') })]).toEqual([
        action,
        action !== 'kms:Decrypt',
      ]);
    }
    const api = { resource: 'arn:aws:apigateway:eu-west-1::/apis/a1b2c3d4e5' };
    expect(allows(boundary, { action: 'apigateway:PATCH', ...api, context: tags('prod') })).toBe(
      false,
    );
    expect(allows(boundary, { action: 'apigateway:PATCH', ...api, context: tags('dev') })).toBe(
      true,
    );
  });

  it('lets no bootstrap role delete or change the account’s stage markers', () => {
    for (const stage of Object.keys(STAGES))
      for (const action of ['iam:DeletePolicy', 'iam:CreatePolicyVersion']) {
        const resource = `arn:aws:iam::123456789012:policy/${ACCOUNT_STAGE_MARKER}-${stage}`;
        expect([action, stage, allows(boundary, { action, resource })]).toEqual([
          action,
          stage,
          false,
        ]);
      }
  });

  it('refuses a change set that imports resources, and allows dev’s other change sets', () => {
    const stack = `arn:aws:cloudformation:eu-west-1:123456789012:stack/${STAGES.dev.stackName}/0f1e2d3c`;
    const changeSet = { action: 'cloudformation:CreateChangeSet', resource: stack };
    expect(allows(boundary, changeSet)).toBe(true);
    expect(
      allows(boundary, {
        ...changeSet,
        context: { 'cloudformation:ImportResourceTypes': ['AWS::ApiGatewayV2::Route'] },
      }),
    ).toBe(false);
  });
});
