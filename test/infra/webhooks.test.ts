/**
 * The Webhooks construct on its own (inline functions, no bundling): the stream mapping and its
 * filter, the queues, the dead-letter alarm metric, least-privilege IAM (cdk-nag runs on the
 * whole stack in stack.test.ts).
 */
import { App, Stack } from 'aws-cdk-lib';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AttributeType, BillingMode, StreamViewType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { Webhooks } from '../../lib/infra/constructs/webhooks';
import { DELIVERY_SOURCE } from '../../lib/definitions/webhooks';
import { FUNCTIONS } from '../../lib/definitions/functions';
import { MAX_ATTEMPTS, RETRY_DELAYS_SECONDS } from '../../lambda/shared/webhook/schedule';

// Synthesis writes to an output folder: one temporary folder, removed after the suite.
const outdir = mkdtempSync(join(tmpdir(), 'plant-store-webhooks-cdk-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

function build(stream = true) {
  const app = new App({ outdir: mkdtempSync(join(outdir, 'app-')) });
  const stack = new Stack(app, 'Test');
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
  const webhooks = new Webhooks(stack, 'Webhooks', {
    plantsTable,
    subscriptionsTable,
    fanOut: fn('FanOut'),
    deliver: fn('Deliver'),
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

it('invokes the fan-out from the stream for inserts only, bisecting, with partial batch failures', () => {
  template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
    EventSourceArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('^Plants'), 'StreamArn'] },
    FunctionName: { Ref: Match.stringLikeRegexp('^FanOut') },
    StartingPosition: 'LATEST',
    FilterCriteria: { Filters: [{ Pattern: JSON.stringify({ eventName: ['INSERT'] }) }] },
    BisectBatchOnFunctionError: true,
    FunctionResponseTypes: ['ReportBatchItemFailures'],
    MaximumRetryAttempts: Match.anyValue(),
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

it('dead-letters after one receive per attempt of the schedule; encrypted queues, TLS only', () => {
  expect(MAX_ATTEMPTS).toBe(RETRY_DELAYS_SECONDS.length + 1);
  template.hasResourceProperties('AWS::SQS::Queue', {
    RedrivePolicy: {
      deadLetterTargetArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('DeadLetterQueue'), 'Arn'] },
      maxReceiveCount: MAX_ATTEMPTS,
    },
    VisibilityTimeout: DELIVERY_SOURCE.visibilityTimeoutSeconds,
    MessageRetentionPeriod: 4 * 86_400,
  });
  // The whole schedule fits in the retention period with room for a redrive.
  expect(RETRY_DELAYS_SECONDS.reduce((a, b) => a + b) * 1.2).toBeLessThan(4 * 86_400);
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

it('gives the fan-out only send on the delivery (and stream failure) queue and the stream read', () => {
  const statements = statementsOf('FanOut');
  for (const s of statements.filter((s) => s.actions.includes('sqs:SendMessage'))) {
    expect(JSON.stringify(s.resource)).toMatch(
      /^\{"Fn::GetAtt":\["Webhooks(DeliveryQueue|StreamFailureQueue)/,
    );
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

it('gives the deliverer consume on the delivery queue and Decrypt on the secrets key, nothing else', () => {
  const statements = statementsOf('Deliver');
  const decrypt = statements.find((s) => s.actions.includes('kms:Decrypt'));
  expect(JSON.stringify(decrypt?.resource)).toMatch(/WebhooksSecretsKey/);
  expect(statements.flatMap((s) => s.actions).sort()).toEqual(
    [
      'kms:Decrypt',
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

it('alarms on the dead letters and graphs delivered, failed and dead-lettered', () => {
  expect(Object.keys(webhooks.alarmMetrics)).toEqual([
    'WebhookDeadLetters',
    'WebhookStreamFailures',
  ]);
  const deadLetters = stack.resolve(webhooks.alarmMetrics.WebhookDeadLetters!.toMetricConfig());
  expect(deadLetters.metricStat).toMatchObject({
    metricName: 'ApproximateNumberOfMessagesVisible',
    namespace: 'AWS/SQS',
  });
  const titles = webhooks.widgets.map((w) => JSON.stringify(stack.resolve(w.toJson())));
  expect(titles.join()).toMatch(/WebhooksDelivered.*WebhookAttemptsFailed.*WebhooksDeadLettered/);
});
