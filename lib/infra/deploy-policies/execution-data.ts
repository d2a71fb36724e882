/**
 * What CloudFormation does to the stage's data and its watchers (tables, queues, topics, keys,
 * log groups, alarms, the dashboard): each resource type with the actions its create, read,
 * update and delete take, on the stage's resources only.
 */
import { arn, named, tagged, taggedOnCreate, type DeployPolicyScope, type Grant } from './grants';

/** The grants CloudFormation needs for some resource types of the stage's stack. */
export interface ResourceGrants {
  readonly types: readonly string[];
  /** Only with the static egress. */
  readonly staticEgress?: boolean;
  grants(scope: DeployPolicyScope): Grant[];
}

/** The data resource types of the stack, and what CloudFormation does to them. */
export const DATA_GRANTS: readonly ResourceGrants[] = [
  { types: ['AWS::CDK::Metadata'], grants: () => [] },
  {
    types: ['AWS::DynamoDB::Table'],
    grants: (s) => [
      {
        actions: [
          'dynamodb:CreateTable',
          'dynamodb:DeleteTable',
          'dynamodb:DescribeTable',
          'dynamodb:UpdateTable',
          'dynamodb:DescribeTimeToLive',
          'dynamodb:UpdateTimeToLive',
          'dynamodb:DescribeContinuousBackups',
          'dynamodb:UpdateContinuousBackups',
          'dynamodb:DescribeContributorInsights',
          'dynamodb:UpdateContributorInsights',
          'dynamodb:DescribeKinesisStreamingDestination',
          'dynamodb:GetResourcePolicy',
          'dynamodb:ListTagsOfResource',
          'dynamodb:TagResource',
          'dynamodb:UntagResource',
        ],
        resources: [arn(s, 'dynamodb', `table/${named(s)}`)],
      },
    ],
  },
  {
    types: ['AWS::Logs::LogGroup'],
    grants: (s) => [
      {
        actions: [
          'logs:CreateLogGroup',
          'logs:DeleteLogGroup',
          'logs:PutRetentionPolicy',
          'logs:DeleteRetentionPolicy',
          'logs:ListTagsForResource',
          'logs:TagResource',
          'logs:UntagResource',
          'logs:ListTagsLogGroup',
        ],
        resources: [arn(s, 'logs', `log-group:${named(s)}`)],
      },
      // Listing takes the account's log groups (CloudFormation reads one by its name's prefix).
      { actions: ['logs:DescribeLogGroups'], resources: ['*'] },
    ],
  },
  {
    types: ['AWS::SQS::Queue', 'AWS::SQS::QueuePolicy'],
    grants: (s) => [
      {
        actions: [
          'sqs:CreateQueue',
          'sqs:DeleteQueue',
          'sqs:GetQueueAttributes',
          'sqs:SetQueueAttributes',
          'sqs:GetQueueUrl',
          'sqs:ListQueueTags',
          'sqs:TagQueue',
          'sqs:UntagQueue',
        ],
        resources: [arn(s, 'sqs', named(s))],
      },
    ],
  },
  {
    types: ['AWS::KMS::Key', 'AWS::KMS::Alias'],
    grants: (s) => [
      { actions: ['kms:CreateKey'], resources: ['*'], conditions: taggedOnCreate(s) },
      {
        // CreateKey's tags are authorized as kms:TagResource on every key of the account and
        // region (KMS: "Controlling access to tags"), before the key exists: by the request's
        // tags, on a key no stage tag marks yet (never re-tagging another stage's key).
        actions: ['kms:TagResource'],
        resources: [arn(s, 'kms', 'key/*')],
        conditions: taggedOnCreate(s),
      },
      {
        // A key's ARN holds a random id: the stage's keys are the ones tagged with its name.
        actions: [
          'kms:DescribeKey',
          'kms:GetKeyPolicy',
          'kms:PutKeyPolicy',
          'kms:GetKeyRotationStatus',
          'kms:EnableKeyRotation',
          'kms:DisableKeyRotation',
          'kms:UpdateKeyDescription',
          'kms:ListResourceTags',
          'kms:TagResource',
          'kms:UntagResource',
          'kms:ScheduleKeyDeletion',
          'kms:CreateAlias',
          'kms:DeleteAlias',
          'kms:UpdateAlias',
        ],
        resources: [arn(s, 'kms', 'key/*')],
        conditions: tagged(s),
      },
      {
        actions: ['kms:CreateAlias', 'kms:DeleteAlias', 'kms:UpdateAlias'],
        resources: [arn(s, 'kms', `alias/${named(s)}`)],
      },
      { actions: ['kms:ListAliases'], resources: ['*'] },
    ],
  },
  {
    types: ['AWS::SNS::Topic', 'AWS::SNS::TopicPolicy', 'AWS::SNS::Subscription'],
    grants: (s) => [
      {
        actions: [
          'sns:CreateTopic',
          'sns:DeleteTopic',
          'sns:GetTopicAttributes',
          'sns:SetTopicAttributes',
          'sns:Subscribe',
          'sns:Unsubscribe',
          'sns:GetSubscriptionAttributes',
          'sns:ListSubscriptionsByTopic',
          'sns:ListTagsForResource',
          'sns:TagResource',
          'sns:UntagResource',
        ],
        resources: [arn(s, 'sns', named(s))],
      },
    ],
  },
  {
    types: ['AWS::CloudWatch::Alarm', 'AWS::CloudWatch::Dashboard'],
    grants: (s) => [
      {
        actions: [
          'cloudwatch:PutMetricAlarm',
          'cloudwatch:DeleteAlarms',
          'cloudwatch:DescribeAlarms',
          'cloudwatch:ListTagsForResource',
          'cloudwatch:TagResource',
          'cloudwatch:UntagResource',
        ],
        resources: [arn(s, 'cloudwatch', `alarm:${named(s)}`)],
      },
      {
        // The dashboard is named after the stack (lib/infra/constructs/monitoring.ts).
        actions: [
          'cloudwatch:PutDashboard',
          'cloudwatch:GetDashboard',
          'cloudwatch:DeleteDashboards',
        ],
        resources: [arn(s, 'cloudwatch', `dashboard/${s.stackName}`, false)],
      },
    ],
  },
];
