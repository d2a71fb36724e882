/**
 * The most any role of a stage's stack may ever do (its permissions boundary): the data plane of
 * the stage's own tables, queues, keys and log groups, and what a function in the VPC needs. A
 * role the stack grants more is held to this; a role of one stage never reaches another's data.
 */
import { NETWORK_INTERFACE_ACTIONS } from '../../definitions/policies';
import { arn, named, stackRoles, tagged, type DeployPolicyScope, type Grant } from './grants';

/** What the stack's own roles may ever do: the data plane of the stage's resources. */
export function workloadGrants(s: DeployPolicyScope): Grant[] {
  const tables = arn(s, 'dynamodb', `table/${named(s)}`);
  const logGroups = [named(s), `/aws/lambda/${named(s)}`].flatMap((group) => [
    arn(s, 'logs', `log-group:${group}`),
    arn(s, 'logs', `log-group:${group}:*`),
  ]);
  return [
    {
      actions: [
        'dynamodb:GetItem',
        'dynamodb:BatchGetItem',
        'dynamodb:Query',
        'dynamodb:Scan',
        'dynamodb:ConditionCheckItem',
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
        'dynamodb:DeleteItem',
        'dynamodb:BatchWriteItem',
        'dynamodb:DescribeTable',
        'dynamodb:DescribeStream',
        'dynamodb:GetRecords',
        'dynamodb:GetShardIterator',
      ],
      resources: [tables, `${tables}/index/*`, `${tables}/stream/*`],
    },
    { actions: ['dynamodb:ListStreams'], resources: ['*'] },
    {
      actions: [
        'sqs:SendMessage',
        'sqs:ReceiveMessage',
        'sqs:DeleteMessage',
        'sqs:ChangeMessageVisibility',
        'sqs:GetQueueAttributes',
        'sqs:GetQueueUrl',
      ],
      resources: [arn(s, 'sqs', named(s))],
    },
    {
      actions: ['kms:Encrypt', 'kms:Decrypt', 'kms:GenerateDataKey', 'kms:DescribeKey'],
      resources: [arn(s, 'kms', 'key/*')],
      conditions: tagged(s),
    },
    {
      actions: [
        'logs:CreateLogGroup',
        'logs:CreateLogStream',
        'logs:PutLogEvents',
        'logs:DescribeLogStreams',
      ],
      resources: logGroups,
    },
    { actions: ['logs:DescribeLogGroups'], resources: [arn(s, 'logs', 'log-group:*')] },
    { actions: ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'], resources: ['*'] },
    ...(s.staticEgress
      ? [
          {
            // A function in the VPC: Lambda's network interfaces (they take no resource).
            actions: [...NETWORK_INTERFACE_ACTIONS],
            resources: ['*'],
          },
          {
            // The custom resource that empties the VPC's default security group.
            actions: [
              'ec2:AuthorizeSecurityGroupIngress',
              'ec2:AuthorizeSecurityGroupEgress',
              'ec2:RevokeSecurityGroupIngress',
              'ec2:RevokeSecurityGroupEgress',
            ],
            resources: [arn(s, 'ec2', 'security-group/*')],
          },
          {
            // The flow log's role, which CDK lets pass itself to the flow log.
            actions: ['iam:PassRole'],
            resources: [stackRoles(s)],
            conditions: { StringEquals: { 'iam:PassedToService': 'vpc-flow-logs.amazonaws.com' } },
          },
        ]
      : []),
  ];
}
