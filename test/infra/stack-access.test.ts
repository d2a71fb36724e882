/**
 * Least privilege in the synthesized template: each function's role grants exactly what the
 * registry gives it (lib/definitions/functions.ts, through lib/definitions/policies.ts), and the
 * secrets key's policy is the registry's too.
 */
import { Template } from 'aws-cdk-lib/assertions';
import {
  FUNCTIONS,
  FUNCTION_NAMES,
  TABLES_BY_KEY,
  type FunctionName,
} from '../../lib/definitions/functions';
import { functionStatements, keyPolicy, type ResourceArns } from '../../lib/definitions/policies';
import { logicalIdOf, synth } from '../support/stack-synth';
import { PLANTS_BY_TAG_INDEX } from '../../lambda/aws/tables';

let template: Template;
beforeAll(() => {
  template = synth();
});

describe('access', () => {
  it('grants each function exactly what the registry gives it, besides what Lambda itself uses on its behalf', () => {
    const arnOf = (type: string, prefix: string) => {
      const ids = Object.keys(template.findResources(type)).filter((id) => id.startsWith(prefix));
      if (ids.length !== 1) throw new Error(`no single ${type} ${prefix}…: ${ids.join(', ')}`);
      return JSON.stringify({ 'Fn::GetAtt': [ids[0], 'Arn'] });
    };
    const queueIds = {
      deliveries: 'WebhooksDeliveryQueue',
      deadLetters: 'WebhooksDeadLetterQueue',
      streamFailures: 'WebhooksStreamFailureQueue',
    } as const;
    const arns: ResourceArns = {
      table: (key) =>
        JSON.stringify({
          'Fn::GetAtt': [
            logicalIdOf(template, 'AWS::DynamoDB::Table', {
              KeySchema: [{ AttributeName: TABLES_BY_KEY[key].partitionKey.name, KeyType: 'HASH' }],
            }),
            'Arn',
          ],
        }),
      queue: (key) => arnOf('AWS::SQS::Queue', queueIds[key]),
      role: (name) => arnOf('AWS::IAM::Role', `${FUNCTIONS[name].id}Role`),
      accountRoot: '',
      deployer: '',
    };
    // A resource as the template writes it: an index's ARN is the table's joined with its path.
    const resourceText = (resource: unknown) => {
      if (typeof resource !== 'string') return JSON.stringify(resource);
      if (!resource.startsWith('{')) return resource;
      const [table = '', index] = resource.split('/index/');
      return JSON.stringify(
        index === undefined
          ? JSON.parse(table)
          : { 'Fn::Join': ['', [JSON.parse(table), `/index/${index}`]] },
      );
    };
    const pairs = (statements: readonly { Action: unknown; Resource: unknown }[]) =>
      statements.flatMap((s) =>
        [s.Action]
          .flat()
          .flatMap((action) =>
            [s.Resource].flat().map((resource) => `${String(action)} ${resourceText(resource)}`),
          ),
      );
    for (const name of FUNCTION_NAMES) {
      const [, policy] = Object.entries(template.findResources('AWS::IAM::Policy')).find(([id]) =>
        id.startsWith(`${FUNCTIONS[name].id}RoleDefaultPolicy`),
      )!;
      const granted = new Set(pairs(policy.Properties.PolicyDocument.Statement));
      const registry = pairs(functionStatements(name, arns));
      expect([...registry].filter((pair) => !granted.has(pair))).toEqual([]);
      // Everything else is Lambda's own work for the function: its logs, and its event source
      // mapping's reads (the stream's, or the queue's) and on-failure sends.
      const logs = arnOf('AWS::Logs::LogGroup', `${FUNCTIONS[name].id}Logs`);
      const lambdasOwn = [...granted].filter((pair) => !registry.includes(pair));
      for (const pair of lambdasOwn) {
        expect(pair).toMatch(
          new RegExp(
            `^(logs:(CreateLogStream|PutLogEvents) ${escape(logs)}|dynamodb:(DescribeStream|GetRecords|GetShardIterator|ListStreams) .*|sqs:(ReceiveMessage|DeleteMessage|ChangeMessageVisibility|GetQueueAttributes|GetQueueUrl) ${escape(arns.queue('deliveries'))}|sqs:(SendMessage|GetQueueAttributes|GetQueueUrl) ${escape(arns.queue('streamFailures'))})$`,
          ),
        );
        if (pair.startsWith('sqs:') || pair.startsWith('dynamodb:')) {
          expect(FUNCTIONS[name].trigger).toBeDefined();
        }
      }
    }
    // The deliverer's batch: what the receiver gate keeps on the subscriber's item is written.
    expect(pairs(functionStatements('deliver', arns))).toEqual(
      expect.arrayContaining([
        `dynamodb:GetItem ${arns.table('subscriptions')}`,
        `dynamodb:UpdateItem ${arns.table('subscriptions')}`,
      ]),
    );
    expect(JSON.stringify(template.findResources('AWS::IAM::Role'))).not.toContain(
      'ManagedPolicyArns',
    );
    // A list by tag reads the index alone: Query on its ARN, never on the table, for no one else.
    const byTag = resourceText(`${arns.table('plants')}/index/${PLANTS_BY_TAG_INDEX.name}`);
    for (const name of FUNCTION_NAMES) {
      const queries = pairs(functionStatements(name, arns)).filter((p) => p.includes(':Query'));
      expect(queries).toEqual(name === 'list-plants' ? [`dynamodb:Query ${byTag}`] : []);
    }
  });

  it("deploys the secrets key's policy from the registry: the account administers and seals, the functions given the key use it, under a subscriber context", () => {
    const [key] = Object.values(template.findResources('AWS::KMS::Key'));
    const normal = (statement: Record<string, unknown>) =>
      JSON.parse(
        JSON.stringify({
          ...statement,
          Action: [statement.Action].flat(),
          Resource: [statement.Resource].flat(),
        }),
        (_, value: unknown) =>
          typeof value === 'string' && value.startsWith('{') ? JSON.parse(value) : value,
      );
    const roleArn = (name: FunctionName) =>
      JSON.stringify({
        'Fn::GetAtt': [
          Object.keys(template.findResources('AWS::IAM::Role')).find((id) =>
            id.startsWith(`${FUNCTIONS[name].id}Role`),
          ),
          'Arn',
        ],
      });
    const expected = keyPolicy('secrets', {
      table: () => '',
      queue: () => '',
      role: roleArn,
      accountRoot: JSON.stringify({
        'Fn::Join': [
          '',
          ['arn:', { Ref: 'AWS::Partition' }, ':iam::', { Ref: 'AWS::AccountId' }, ':root'],
        ],
      }),
      // The bootstrap's execution role, as the template writes it.
      deployer: JSON.stringify(deployerOf(key!.Properties.KeyPolicy.Statement)),
    });
    expect(key!.Properties.KeyPolicy.Statement.map(normal)).toEqual(
      expected.Statement.map((s) => normal(s as unknown as Record<string, unknown>)),
    );
  });
});

function deployerOf(
  statements: { Sid?: string; Condition?: Record<string, Record<string, unknown>> }[],
) {
  return statements.find((s) => s.Sid === 'OnlyDeploymentsChangeThePolicy')?.Condition?.ArnEquals?.[
    'aws:PrincipalArn'
  ];
}

/** `text` matched literally in a regular expression. */
function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
