/**
 * The policies a stage's deployment is held to (lib/infra/deploy-policies/), read from the
 * synthesized access stacks and checked against the synthesized stage stacks: no whole service
 * granted, every resource type of the stack covered, every role of the stack under the workload
 * boundary and every action it is granted inside it, IAM's size limit kept, and the two stages'
 * policies reaching disjoint resources (a random-id resource only through the stage's tag).
 */
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { stagePolicyNames } from '../../lib/infra/bootstrap';
import { deployAccessStackName } from '../../lib/infra/deploy-access-stack';
import { ATTACHED_MANAGED_POLICIES, EXECUTION_GRANTS } from '../../lib/infra/deploy-policies';
import { STAGES, STAGE_TAG, type StageName } from '../../lib/infra/stages';
import { synthTemplates } from '../support/cdk-app';

const NAMES = {
  githubRepository: 'octo-org/plant-store',
  githubOwnerId: '111',
  githubRepositoryId: '222',
};
const STAGE_NAMES = Object.keys(STAGES) as StageName[];
/** Each stage synthesized, with and without the static egress (a VPC). */
const SYNTHS = STAGE_NAMES.flatMap((stage) =>
  [false, true].map((staticEgress) => {
    const templates = synthTemplates({
      ...NAMES,
      stage,
      ...(staticEgress && { webhookStaticIps: 'true' }),
    });
    return { stage, staticEgress, templates, stack: templates[STAGES[stage].stackName]! };
  }),
);
const AWS = { partition: 'aws-us-gov', region: 'ap-southeast-2', account: '123456789012' };

interface Statement {
  Effect: 'Allow' | 'Deny';
  Action: string | string[];
  Resource: unknown;
  Condition?: Record<string, Record<string, unknown>>;
}
const list = <T>(value: T | T[]) => [value].flat() as T[];

/** A template value with CloudFormation's pseudo parameters put in, as deployed. */
function resolve(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(resolve);
  if (value && typeof value === 'object') {
    const object = value as Record<string, unknown>;
    if ('Fn::Sub' in object) {
      return (object['Fn::Sub'] as string)
        .replaceAll('${AWS::Partition}', AWS.partition)
        .replaceAll('${AWS::Region}', AWS.region)
        .replaceAll('${AWS::AccountId}', AWS.account);
    }
    if ('Fn::Join' in object) {
      const [separator, parts] = object['Fn::Join'] as [string, unknown[]];
      return parts.map(resolve).join(separator);
    }
    if ('Ref' in object) {
      return {
        'AWS::Partition': AWS.partition,
        'AWS::Region': AWS.region,
        'AWS::AccountId': AWS.account,
      }[object.Ref as string];
    }
    return Object.fromEntries(Object.entries(object).map(([k, v]) => [k, resolve(v)]));
  }
  return value;
}

/** A stage's managed policies in its access stack, by name, resolved. */
function policiesOf(templates: Record<string, Template>, stage: StageName) {
  const template = templates[deployAccessStackName(stage)]!;
  const names: string[] = Object.values(stagePolicyNames(STAGES[stage].stackName));
  return Object.fromEntries(
    Object.values(template.findResources('AWS::IAM::ManagedPolicy'))
      .filter((policy) => names.includes(policy.Properties.ManagedPolicyName))
      .map((policy) => [
        policy.Properties.ManagedPolicyName as string,
        resolve(policy.Properties.PolicyDocument) as { Statement: Statement[] },
      ]),
  );
}

const glob = (pattern: string) =>
  new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replaceAll('*', '.*')}$`);

it.each(SYNTHS)(
  '$stage (static egress $staticEgress): no policy grants a whole service; the execution policies name every action',
  ({ stage, templates }) => {
    const policies = policiesOf(templates, stage);
    const names = stagePolicyNames(STAGES[stage].stackName);
    expect(Object.keys(policies).sort()).toEqual(Object.values(names).sort());
    for (const [name, document] of Object.entries(policies)) {
      const actions = document.Statement.flatMap((s) => list(s.Action));
      expect(actions.filter((action) => action === '*' || /^[\w-]+:\*$/.test(action))).toEqual([]);
      if (
        [names.executionData, names.executionCompute, names.executionNetwork].some(
          (n) => n === name,
        )
      ) {
        expect([name, actions.filter((action) => action.includes('*'))]).toEqual([name, []]);
      }
    }
  },
);

it.each(SYNTHS)(
  '$stage (static egress $staticEgress): each managed policy is within IAM’s 6,144 characters',
  ({ stage, templates }) => {
    for (const [name, document] of Object.entries(policiesOf(templates, stage))) {
      expect([name, JSON.stringify(document).length < 6_144]).toEqual([name, true]);
    }
  },
);

it.each(SYNTHS)(
  '$stage (static egress $staticEgress): the execution policies cover every resource type of the stack',
  ({ staticEgress, stack }) => {
    const covered = EXECUTION_GRANTS.filter((entry) => !entry.staticEgress || staticEgress).flatMap(
      (entry) => entry.types,
    );
    const resources = stack.toJSON().Resources as Record<string, { Type: string }>;
    const types = new Set(Object.values(resources).map((resource) => resource.Type));
    expect([...types].filter((type) => !covered.includes(type))).toEqual([]);
  },
);

it.each(SYNTHS)(
  '$stage (static egress $staticEgress): every role of the stack is under the workload boundary, which allows every action the stack grants',
  ({ stage, templates, stack }) => {
    const boundary = policiesOf(templates, stage)[
      stagePolicyNames(STAGES[stage].stackName).workloadBoundary
    ]!;
    const allowed = new Set(boundary.Statement.flatMap((s) => list(s.Action)));
    const roles = Object.values(stack.findResources('AWS::IAM::Role'));
    expect(roles.length).toBeGreaterThan(0);
    const attached = new Set<string>();
    for (const role of roles) {
      expect(resolve(role.Properties.PermissionsBoundary)).toBe(
        `arn:${AWS.partition}:iam::${AWS.account}:policy/${STAGES[stage].stackName}-workload-boundary`,
      );
      for (const arn of list(resolve(role.Properties.ManagedPolicyArns ?? []) as string[])) {
        attached.add(arn.replace(/^arn:[\w-]+:iam::aws:policy\//, ''));
      }
    }
    expect(
      [...attached].filter(
        (name) => !(ATTACHED_MANAGED_POLICIES as readonly string[]).includes(name),
      ),
    ).toEqual([]);
    // What AWS's two managed policies grant (its documentation), then what the stack writes.
    const granted = [
      ...(attached.size
        ? ['logs:CreateLogGroup', 'logs:CreateLogStream', 'logs:PutLogEvents']
        : []),
      ...Object.values(stack.findResources('AWS::IAM::Policy')).flatMap((policy) =>
        (policy.Properties.PolicyDocument.Statement as Statement[]).flatMap((s) => list(s.Action)),
      ),
    ];
    expect([...new Set(granted)].filter((action) => !allowed.has(action))).toEqual([]);
  },
);

it.each(SYNTHS)(
  '$stage (static egress $staticEgress): what the policies reach by the stage tag carries it',
  ({ stage, stack }) => {
    for (const type of [
      'AWS::KMS::Key',
      'AWS::ApiGatewayV2::Api',
      'AWS::ApiGatewayV2::Stage',
      // Every EC2 piece that takes a tag: the network policy changes only tagged ones.
      'AWS::EC2::VPC',
      'AWS::EC2::Subnet',
      'AWS::EC2::RouteTable',
      'AWS::EC2::InternetGateway',
      'AWS::EC2::NatGateway',
      'AWS::EC2::EIP',
      'AWS::EC2::VPCEndpoint',
      'AWS::EC2::SecurityGroup',
      'AWS::EC2::FlowLog',
    ]) {
      for (const resource of Object.values(stack.findResources(type))) {
        const tags = resource.Properties.Tags;
        const value = Array.isArray(tags)
          ? tags.find((t: { Key: string }) => t.Key === STAGE_TAG)?.Value
          : tags?.[STAGE_TAG];
        expect([type, value]).toEqual([type, stage]);
      }
    }
    // CloudFormation's dashboard takes no tags (cfn-lint E3002); it is reached by its name.
    stack.hasResourceProperties('AWS::CloudWatch::Dashboard', {
      DashboardName: STAGES[stage].stackName,
      Tags: Match.absent(),
    });
  },
);

/** Resources of `stage`, as deployed names would be: those named after it, those known by id. */
function resourcesOf(stage: StageName) {
  const { stackName: stack, qualifier: q } = STAGES[stage];
  const { partition: p, region: r, account: a } = AWS;
  const named = [
    `arn:${p}:cloudformation:${r}:${a}:stack/${stack}/0f1e2d3c-aaaa-bbbb-cccc-0123456789ab`,
    `arn:${p}:dynamodb:${r}:${a}:table/${stack}-PlantsTable0ED39346-1A2B3C4D5E6F`,
    `arn:${p}:dynamodb:${r}:${a}:table/${stack}-PlantsTable0ED39346-1A2B3C4D5E6F/stream/2026-01-01T00:00:00.000`,
    `arn:${p}:lambda:${r}:${a}:function:${stack}-CreatePlantFunctionAE9062BF-a1b2c3`,
    `arn:${p}:logs:${r}:${a}:log-group:${stack}-CreatePlantLogs2D474390-a1b2c3`,
    `arn:${p}:logs:${r}:${a}:log-group:/aws/lambda/${stack}-CustomVpcRestrictDefaultSGCus-a1b2`,
    `arn:${p}:iam::${a}:role/${stack}-CreatePlantRole03794732-a1b2c3`,
    `arn:${p}:iam::${a}:policy/${stack}-workload-boundary`,
    `arn:${p}:sqs:${r}:${a}:${stack}-WebhooksDeliveryQueue42B30D41-a1b2c3`,
    `arn:${p}:sns:${r}:${a}:${stack}-MonitoringAlarmsTopic63051086-a1b2c3`,
    `arn:${p}:cloudwatch:${r}:${a}:alarm:${stack}-Functions/create-plant/Errors`,
    `arn:${p}:cloudwatch::${a}:dashboard/${stack}`,
    `arn:${p}:kms:${r}:${a}:alias/${stack}-TablessubscriptionsEF09C325-a1b2c3`,
    `arn:${p}:iam::${a}:role/cdk-${q}-cfn-exec-role-${a}-${r}`,
    `arn:${p}:iam::${a}:role/cdk-${q}-deploy-role-${a}-${r}`,
    `arn:${p}:s3:::cdk-${q}-assets-${a}-${r}`,
    `arn:${p}:s3:::cdk-${q}-assets-${a}-${r}/assets/0123.zip`,
    `arn:${p}:ssm:${r}:${a}:parameter/cdk-bootstrap/${q}/version`,
    // No stage's policy reaches any stage's access (its own included).
    ...STAGE_NAMES.map(
      (name) => `arn:${p}:iam::${a}:role/${deployAccessStackName(name)}-AccessGitHubRole-a1b2c3`,
    ),
  ];
  const byId = [
    `arn:${p}:kms:${r}:${a}:key/1234abcd-12ab-34cd-56ef-1234567890ab`,
    `arn:${p}:apigateway:${r}::/apis/a1b2c3d4e5`,
    `arn:${p}:apigateway:${r}::/apis/a1b2c3d4e5/stages/$default`,
    `arn:${p}:apigateway:${r}::/apis/a1b2c3d4e5/routes/r1s2t3`,
    `arn:${p}:ec2:${r}:${a}:vpc/vpc-0123456789abcdef0`,
    `arn:${p}:lambda:${r}:${a}:event-source-mapping:14e0db71-0000-0000-0000-0123456789ab`,
  ];
  return { named, byId };
}

/**
 * Calls on no resource in particular (reads, a new key, Lambda's network interfaces, X-Ray): the
 * only actions on every resource of the account that no condition keeps to the stage.
 */
const ACCOUNT_WIDE = [
  /^(\w+):(Describe|List)[\w*]*$/,
  /^sts:GetCallerIdentity$/,
  /^xray:Put\w+$/,
  /^ec2:(Create|Delete)NetworkInterface$|^ec2:\w+PrivateIpAddresses$/,
  // HTTP API access logs: CloudWatch Logs' vended delivery is account-level (docs/security.md).
  /^logs:(Create|Get|Update|Delete)LogDelivery$|^logs:PutResourcePolicy$/,
  // A new key takes no resource; the execution policy requires the stage's tag on it.
  /^kms:CreateKey$/,
];
const accountWide = (action: string) => ACCOUNT_WIDE.some((pattern) => pattern.test(action));
/** HTTP API routes, integrations and authorizers: no tag, no name (docs/security.md). */
const API_CHILDREN = /\/apis\/\*\/(routes|integrations|authorizers)\*$/;
/** The security groups' rules of the VPC the custom resource empties (docs/security.md). */
const SECURITY_GROUP_RULES = /^ec2:(Authorize|Revoke)SecurityGroup(Ingress|Egress)$/;

/** Whether a condition of `statement` keeps it to `stage` (its tag, its functions). */
const keptToStage = (statement: Statement, stage: StageName) =>
  Object.values(statement.Condition ?? {}).some((keys) =>
    Object.entries(keys).some(
      ([key, value]) =>
        (key.endsWith(`Tag/${STAGE_TAG}`) && value === stage) ||
        (key === 'lambda:FunctionArn' &&
          String(value).includes(`:function:${STAGES[stage].stackName}-`)),
    ),
  );

/** Each action of `statement` on each of `arns` its resources match, in the action's service. */
const reaches = (statement: Statement, arns: readonly string[]) =>
  list(statement.Action).flatMap((action) =>
    arns
      .filter((arn) => arn.split(':')[2] === action.split(':')[0])
      .filter((arn) => list(statement.Resource as string).some((p) => glob(p).test(arn)))
      .map((arn) => ({ action, arn })),
  );

describe.each(STAGE_NAMES)('%s’s policies and the other stage', (stage) => {
  const other = STAGE_NAMES.find((name) => name !== stage)!;
  const { templates } = SYNTHS.find((s) => s.stage === stage && s.staticEgress)!;
  const policies = policiesOf(templates, stage);
  const names = stagePolicyNames(STAGES[stage].stackName);
  const theirs = resourcesOf(other);
  const ownAccess = resourcesOf(stage).named.filter((arn) => arn.includes('deploy-access'));

  it.each(Object.keys(policies))(
    '%s reaches none of the other stage’s named resources, nor any access stack',
    (name) => {
      const reached = policies[name]!.Statement.filter(
        (statement) => statement.Effect === 'Allow' && !keptToStage(statement, stage),
      )
        .flatMap((statement) => reaches(statement, [...theirs.named, ...ownAccess]))
        .filter(({ action }) => !accountWide(action));
      expect(reached).toEqual([]);
    },
  );

  it.each([
    names.executionData,
    names.executionCompute,
    names.executionNetwork,
    names.workloadBoundary,
    names.deployBoundary,
  ])('%s reaches a resource known by id only through this stage’s tag or functions', (name) => {
    const reached = policies[name]!.Statement.filter(
      (statement) =>
        statement.Effect === 'Allow' &&
        !keptToStage(statement, stage) &&
        // The asset bucket's key, used only through S3 (whose only bucket here is the stage's).
        !/^s3\./.test(String(statement.Condition?.StringEquals?.['kms:ViaService'])),
    ).flatMap((statement) =>
      reaches(statement, theirs.byId)
        .filter(({ action }) => !accountWide(action) && !SECURITY_GROUP_RULES.test(action))
        .filter(() => !list(statement.Resource as string).every((p) => API_CHILDREN.test(p))),
    );
    expect(reached).toEqual([]);
  });

  it('the deploy boundary lets the CLI change only this stage’s stack, through change sets', () => {
    const boundary = policiesOf(templates, stage)[names.deployBoundary]!;
    const cloudformation = boundary.Statement.filter(
      (s) =>
        s.Effect === 'Allow' &&
        list(s.Action).some((action) => action.startsWith('cloudformation:')),
    );
    // (The boundary writes several services' resources named after the stage in one statement.)
    const stacks = cloudformation
      .flatMap((s) => list(s.Resource as string))
      .filter((resource) => resource === '*' || resource.split(':')[2] === 'cloudformation');
    expect(stacks).toEqual([
      `arn:${AWS.partition}:cloudformation:${AWS.region}:${AWS.account}:stack/${STAGES[stage].stackName}/*`,
    ]);
  });
});
