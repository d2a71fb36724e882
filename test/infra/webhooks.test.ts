/**
 * The Webhooks construct on its own (inline functions, no bundling): the stream mapping and its
 * filter, the queues, the dead-letter alarm metric, least-privilege IAM (cdk-nag runs on the
 * whole stack in stack.test.ts).
 */
import { DefaultStackSynthesizer, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AttributeType, BillingMode, StreamViewType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { Webhooks } from '../../lib/infra/constructs/webhooks';
import { DELIVERY_SOURCE, STREAM_SOURCE } from '../../lib/definitions/webhooks';
import { TOMBSTONE_DAYS } from '../../lambda/plants/item';
import type { IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import { FUNCTIONS } from '../../lib/definitions/functions';
import { testApp } from '../support/cdk-app';
import { keyPolicy } from '../../lib/definitions/policies';
import { bootstrapRoleArn } from '../../lib/infra/bootstrap';
import { PolicyDocument } from 'aws-cdk-lib/aws-iam';
import {
  MAX_ATTEMPTS,
  RETRY_DELAYS_SECONDS,
  SAFETY_RECEIVE_COUNT,
} from '../../lambda/webhook/schedule';

function build(stream = true, qualifier?: string) {
  const app = testApp();
  const stack = new Stack(app, 'Test', {
    synthesizer: qualifier ? new DefaultStackSynthesizer({ qualifier }) : undefined,
  });
  const plantsTable = new Table(stack, 'Plants', {
    partitionKey: { name: 'id', type: AttributeType.NUMBER },
    billingMode: BillingMode.PAY_PER_REQUEST,
    stream: stream ? StreamViewType.NEW_IMAGE : undefined,
  });
  const subscriptionsTable = new Table(stack, 'Subscriptions', {
    partitionKey: { name: 'subscriberId', type: AttributeType.STRING },
    billingMode: BillingMode.PAY_PER_REQUEST,
  });
  const fn = (id: string) =>
    new LambdaFunction(stack, id, {
      runtime: Runtime.NODEJS_24_X,
      handler: 'index.handler',
      code: Code.fromInline('export const handler = async () => ({});'),
    });
  const deliver = fn('Deliver');
  const webhooks = new Webhooks(stack, 'Webhooks', {
    plantsTable,
    subscriptionsTable,
    fanOut: fn('FanOut'),
    deliver,
    secretsKeyPolicy: PolicyDocument.fromJson(
      keyPolicy('secrets', {
        table: () => 'unused',
        queue: () => 'unused',
        role: () => deliver.role!.roleArn,
        accountRoot: `arn:aws:iam::${stack.account}:root`,
        // As the stack gives it: its synthesizer's bootstrap execution role.
        deployer: bootstrapRoleArn(
          { qualifier: qualifier ?? DefaultStackSynthesizer.DEFAULT_QUALIFIER },
          'cfn-exec',
        ),
      }),
    ),
  });
  return { stack, webhooks };
}

const { stack, webhooks } = build();
const template = Template.fromStack(stack);
const statementsOf = (rolePrefix: string) =>
  Object.entries(template.findResources('AWS::IAM::Policy'))
    .filter(([id]) => id.startsWith(rolePrefix))
    .flatMap(
      ([, policy]) =>
        policy.Properties.PolicyDocument.Statement as {
          Action: string | string[];
          Resource: unknown;
        }[],
    )
    .map((s) => ({ actions: [s.Action].flat().sort(), resource: s.Resource }));

it('refuses a plants table without a stream', () => {
  expect(() => build(false)).toThrow(/has no stream/);
});

it('invokes the fan-out from the stream for inserts only, bisecting, with partial batch failures, retrying to a maximum age, ten batches a shard at once', () => {
  expect(STREAM_SOURCE.parallelizationFactor).toBeGreaterThanOrEqual(1);
  expect(STREAM_SOURCE.parallelizationFactor).toBeLessThanOrEqual(10);
  // Within the stream's 24 h retention, so a record is given up (and its position kept) before
  // the stream drops it; past an hour, so that an outage of ours is ridden out.
  expect(STREAM_SOURCE.maxRecordAgeSeconds).toBeLessThan(24 * 3_600);
  expect(STREAM_SOURCE.maxRecordAgeSeconds).toBeGreaterThan(3_600);
  const mappings = template.findResources('AWS::Lambda::EventSourceMapping', {
    Properties: { FunctionName: { Ref: Match.stringLikeRegexp('^FanOut') } },
  });
  // No retry count: Lambda's -1, a record is retried until its age passes the maximum.
  expect(Object.values(mappings).map((m) => m.Properties.MaximumRetryAttempts ?? 'unset')).toEqual([
    'unset',
  ]);
  template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
    MaximumRecordAgeInSeconds: STREAM_SOURCE.maxRecordAgeSeconds,
    EventSourceArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('^Plants'), 'StreamArn'] },
    FunctionName: { Ref: Match.stringLikeRegexp('^FanOut') },
    StartingPosition: 'LATEST',
    // Lambda's range is 1 to 10; above 1 it still keeps each plant's records in order.
    ParallelizationFactor: STREAM_SOURCE.parallelizationFactor,
    FilterCriteria: { Filters: [{ Pattern: JSON.stringify({ eventName: ['INSERT', 'MODIFY'] }) }] },
    BisectBatchOnFunctionError: true,
    FunctionResponseTypes: ['ReportBatchItemFailures'],
    DestinationConfig: {
      OnFailure: {
        Destination: { 'Fn::GetAtt': [Match.stringLikeRegexp('StreamFailureQueue'), 'Arn'] },
      },
    },
  });
});

it('invokes the deliverer from the delivery queue with partial batch responses, in large batches', () => {
  // Over 10 a batch needs a batching window of at least 1 s (Lambda's SQS mapping parameters).
  expect(DELIVERY_SOURCE.batchSize).toBe(100);
  expect(DELIVERY_SOURCE.maxBatchingWindowSeconds).toBeGreaterThanOrEqual(1);
  // Lambda's SQS guide: the queue's visibility timeout at least six times the function's timeout.
  expect(DELIVERY_SOURCE.visibilityTimeoutSeconds).toBeGreaterThanOrEqual(
    6 * FUNCTIONS.deliver.timeoutSeconds,
  );
  template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
    EventSourceArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('DeliveryQueue'), 'Arn'] },
    FunctionName: { Ref: Match.stringLikeRegexp('^Deliver') },
    FunctionResponseTypes: ['ReportBatchItemFailures'],
    BatchSize: DELIVERY_SOURCE.batchSize,
    MaximumBatchingWindowInSeconds: DELIVERY_SOURCE.maxBatchingWindowSeconds,
    ScalingConfig: { MaximumConcurrency: DELIVERY_SOURCE.maxConcurrency },
  });
});

it('dead-letters by SQS only as a safety net (the deliverer counts attempts); encrypted queues, TLS only', () => {
  expect(MAX_ATTEMPTS).toBe(RETRY_DELAYS_SECONDS.length + 1);
  expect(SAFETY_RECEIVE_COUNT).toBeGreaterThan(MAX_ATTEMPTS * 2);
  template.hasResourceProperties('AWS::SQS::Queue', {
    RedrivePolicy: {
      deadLetterTargetArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('DeadLetterQueue'), 'Arn'] },
      maxReceiveCount: SAFETY_RECEIVE_COUNT,
    },
    VisibilityTimeout: DELIVERY_SOURCE.visibilityTimeoutSeconds,
    MessageRetentionPeriod: 14 * 86_400,
  });
  // The whole schedule, jitter included, fits in the retention period with days to spare for
  // the waits a receiver asks for (Retry-After, its rate).
  expect(RETRY_DELAYS_SECONDS.reduce((a, b) => a + b) * 1.2).toBeLessThan(5 * 86_400);
  template.allResourcesProperties('AWS::SQS::Queue', { SqsManagedSseEnabled: true });
  template.resourcePropertiesCountIs(
    'AWS::SQS::QueuePolicy',
    {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Deny',
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          }),
        ]),
      },
    },
    3,
  );
});

it('keeps an old tombstone (written with a purgeAt, before tombstones were kept for good) longer than a delivery can wait queued and dead-lettered, and a week more for a replay', () => {
  const queues = template.findResources('AWS::SQS::Queue');
  const delivery = Object.values(queues).find((queue) => queue.Properties.RedrivePolicy)!;
  const [deadLetterId] = delivery.Properties.RedrivePolicy.deadLetterTargetArn['Fn::GetAtt'];
  const retention = (queue: { [key: string]: { MessageRetentionPeriod: number } } | undefined) =>
    queue!.Properties!.MessageRetentionPeriod;
  const waits = retention(delivery) + retention(queues[deadLetterId]!) + 7 * 86_400;
  expect(TOMBSTONE_DAYS * 86_400).toBeGreaterThanOrEqual(waits);
});

it("adds to the fan-out's role only the stream mapping's read and its on-failure send (the function's own grants come from the registry)", () => {
  const statements = statementsOf('FanOut');
  // The mapping itself sends a record past its age to the stream failure queue.
  for (const s of statements.filter((s) => s.actions.includes('sqs:SendMessage'))) {
    expect(JSON.stringify(s.resource)).toMatch(/^\{"Fn::GetAtt":\["WebhooksStreamFailureQueue/);
  }
  expect([...new Set(statements.flatMap((s) => s.actions))].sort()).toEqual(
    [
      'dynamodb:DescribeStream',
      'dynamodb:GetRecords',
      'dynamodb:GetShardIterator',
      'dynamodb:ListStreams',
      'sqs:GetQueueAttributes',
      'sqs:GetQueueUrl',
      'sqs:SendMessage',
    ].sort(),
  );
  expect(JSON.stringify(statements)).not.toMatch(/kms:|sqs:ReceiveMessage|sqs:DeleteMessage/);
});

it("adds to the deliverer's role only the queue mapping's consume (its grants come from the registry)", () => {
  const statements = statementsOf('Deliver');
  expect([...new Set(statements.flatMap((s) => s.actions))].sort()).toEqual(
    [
      'sqs:ChangeMessageVisibility',
      'sqs:DeleteMessage',
      'sqs:GetQueueAttributes',
      'sqs:GetQueueUrl',
      'sqs:ReceiveMessage',
    ].sort(),
  );
  template.hasResourceProperties('AWS::KMS::Key', { EnableKeyRotation: true });
  template.hasResourceProperties('AWS::Lambda::Function', {
    Environment: {
      Variables: {
        WEBHOOK_SECRETS_KEY: { 'Fn::GetAtt': [Match.stringLikeRegexp('SecretsKey'), 'Arn'] },
      },
    },
  });
});

it('key policy: decrypt for the deliver role alone, with a subscriber context; the account administers and seals, never decrypts', () => {
  const [key] = Object.values(template.findResources('AWS::KMS::Key'));
  const statements = key!.Properties.KeyPolicy.Statement as {
    Sid: string;
    Action: string | string[];
    Principal: { AWS: unknown };
    Condition?: unknown;
  }[];
  const actionsOf = (s: (typeof statements)[number]) => [s.Action].flat();
  const decrypting = statements.filter((s) =>
    actionsOf(s).some((a) => /^kms:(\*|Decrypt|ReEncrypt|CreateGrant|Create\*)/.test(a)),
  );
  expect(decrypting).toHaveLength(1);
  expect(decrypting[0]).toMatchObject({
    Action: 'kms:Decrypt',
    Condition: { StringLike: { 'kms:EncryptionContext:subscriberId': 'sub_*' } },
  });
  expect(JSON.stringify(decrypting[0]!.Principal)).toMatch(
    /^\{"AWS":\{"Fn::GetAtt":\["DeliverServiceRole\w+","Arn"\]\}\}$/,
  );
  const account = statements.filter((s) => JSON.stringify(s.Principal).includes(':root'));
  expect(account.flatMap(actionsOf)).toEqual(
    expect.arrayContaining(['kms:PutKeyPolicy', 'kms:ScheduleKeyDeletion', 'kms:Encrypt']),
  );
  expect(account.flatMap(actionsOf).filter((a) => !/^kms:[A-Z]\w+$/.test(a))).toEqual([]);
});

/** The key policy's statements that allow `kms:PutKeyPolicy` (or a wildcard that covers it). */
const policyChanges = (stack: Stack) => {
  const [key] = Object.values(Template.fromStack(stack).findResources('AWS::KMS::Key'));
  return (key!.Properties.KeyPolicy.Statement as { Action: string | string[] }[]).filter((s) =>
    [s.Action].flat().some((a) => /^kms:(\*|Put\*|PutKeyPolicy)$/.test(a)),
  );
};

it.each([
  [undefined, 'hnb659fds'],
  ['plantprod', 'plantprod'],
])(
  "key policy (qualifier %s): only the stack's CloudFormation execution role may rewrite it, so no administrator grants itself decrypt outside a deployment",
  (qualifier, expected) => {
    const changes = policyChanges(build(true, qualifier).stack);
    expect(changes).toEqual([
      {
        Sid: 'OnlyDeploymentsChangeThePolicy',
        Effect: 'Allow',
        Action: 'kms:PutKeyPolicy',
        Principal: { AWS: { 'Fn::Join': ['', expect.arrayContaining([':root'])] } },
        Resource: '*',
        Condition: {
          ArnEquals: {
            'aws:PrincipalArn': {
              'Fn::Join': ['', expect.arrayContaining([`:role/cdk-${expected}-cfn-exec-role-`])],
            },
          },
        },
      },
    ]);
  },
);

it('alarms on the dead letters, the stream failures, deliveries stalled and subscribers failing or disabled; graphs the iterator age', () => {
  expect(Object.keys(webhooks.alarmMetrics)).toEqual([
    'WebhookDeadLetters',
    'WebhookStreamFailures',
    'WebhookDeliveriesStalled',
    'WebhookSubscriberDisabled',
    'WebhookSubscriberFailing',
  ]);
  for (const [id, name] of [
    ['WebhookSubscriberDisabled', 'WebhookSubscribersDisabled'],
    ['WebhookSubscriberFailing', 'WebhookSubscribersFailing'],
  ] as const) {
    expect(
      stack.resolve((webhooks.alarmMetrics[id] as IMetric).toMetricConfig()).metricStat,
    ).toMatchObject({ metricName: name, namespace: 'PlantStore' });
  }
  const stalled = webhooks.alarmMetrics.WebhookDeliveriesStalled as {
    metric: IMetric;
    threshold: number;
    description: string;
  };
  expect(stack.resolve(stalled.metric.toMetricConfig()).metricStat).toMatchObject({
    metricName: 'IteratorAge',
    namespace: 'AWS/Lambda',
    statistic: 'Maximum',
  });
  expect(stalled.threshold).toBe(STREAM_SOURCE.stalledAfterSeconds * 1000);
  expect(stalled.description).toMatch(/^deliveries stalled for 15 minutes/);
  const deadLetters = stack.resolve(
    (webhooks.alarmMetrics.WebhookDeadLetters as IMetric).toMetricConfig(),
  );
  expect(deadLetters.metricStat).toMatchObject({
    metricName: 'ApproximateNumberOfMessagesVisible',
    namespace: 'AWS/SQS',
  });
  const titles = webhooks.widgets.map((w) => JSON.stringify(stack.resolve(w.toJson())));
  expect(titles.join()).toMatch(
    /WebhooksDelivered.*WebhookAttemptsFailed.*WebhooksDeadLettered.*WebhookOurFailures.*IteratorAge/,
  );
  // The oldest message's age is drawn against the longest wait and the horizon.
  expect(titles.join()).toMatch(/longest wait, 12 h.*horizon, 78 h/);
  expect(titles.join()).toMatch(/WebhookSubscribersFailing.*WebhookSubscribersDisabled/);
});
