/**
 * The deliverer's batch under enforcement, with exactly its grants: its bundle's own modules,
 * signing as a session of its role, against the local engine, queues and KMS, deliver to a
 * receiver that accepts, one that is gone (410), one that asks to wait (503 + Retry-After), one
 * that fails a first attempt and one that fails the last, and hold a delivery not due yet:
 * every call is allowed (no denial), and every grant it has was used (none to spare).
 */
import { KMSClient } from '@aws-sdk/client-kms';
import {
  LOCAL_QUEUE_NAMES,
  LOCAL_SECRETS_KEY_ALIAS,
  localQueueUrl,
} from '../../../lib/local/names';
import { ReceiveMessageCommand, SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSEvent } from 'aws-lambda';
import { makeDocumentClient } from '../../../lambda/aws/dynamodb';
import { SUBSCRIPTIONS_TABLE } from '../../../lambda/aws/tables';
import { makeDeliverHandler } from '../../../lambda/deliver/handler';
import { sqsDeadLetters, sqsDeliveryQueue } from '../../../lambda/webhook/delivery-queue';
import { ReceiverStates } from '../../../lambda/webhook/receiver-state';
import { MAX_ATTEMPTS } from '../../../lambda/webhook/schedule';
import { kmsSecretBox, OpenedSecrets } from '../../../lambda/webhook/secrets';
import { generateSecret } from '../../../lambda/webhook/signature';
import { SubscriptionsTable } from '../../../lambda/webhook/subscriptions-table';
import { useLocalAccount } from '../../support/local-account';
import { startReceiver, type Receiver } from '../../support/webhook-receiver';

const local = useLocalAccount();
const receivers: Receiver[] = [];
afterAll(() => Promise.all(receivers.map((r) => r.close())));

it("delivers a batch with exactly the deliverer's grants: nothing denied, nothing granted unused", async () => {
  const operator = { ...local.engine.clientConfig, maxAttempts: 1 };
  const box = kmsSecretBox(LOCAL_SECRETS_KEY_ALIAS, new KMSClient(operator));
  const subscriptions = new SubscriptionsTable(
    makeDocumentClient(operator),
    SUBSCRIPTIONS_TABLE.localName,
  );
  const answers = {
    sub_ok: () => 204,
    sub_gone: () => 410,
    sub_wait: () => ({ status: 503, headers: { 'retry-after': '60' } }),
    sub_failing: () => 500,
    sub_last: () => 500,
  } as const;
  for (const [subscriberId, answer] of Object.entries(answers)) {
    const receiver = await startReceiver(answer);
    receivers.push(receiver);
    receiver.secret = generateSecret();
    await subscriptions.add({
      subscriberId,
      url: receiver.url,
      name: subscriberId,
      createdAt: new Date().toISOString(),
      secret: await box.seal(receiver.secret, subscriberId),
    });
  }
  // The batch as the mapping hands it over: received from the delivery queue (real receipt
  // handles, which a Retry-After's ChangeMessageVisibility needs).
  const sqs = new SQSClient(operator);
  const deliveries = localQueueUrl(local.engine.endpoint, LOCAL_QUEUE_NAMES.deliveries);
  await sqs.send(
    new SendMessageBatchCommand({
      QueueUrl: deliveries,
      Entries: [...Object.keys(answers), 'sub_ok'].map((subscriberId, n) => ({
        Id: String(n),
        MessageBody: JSON.stringify({
          webhookId: `msg_grants${n}`,
          subscriberId,
          plantId: String(n),
          body: `{"id":${n},"name":"p"}`,
          storedAt: new Date().toISOString(),
          // The last one's final attempt, long after its first: it is dead-lettered.
          ...(subscriberId === 'sub_last' && { attempt: MAX_ATTEMPTS - 1, firstAttemptAt: 1 }),
          // A scheduled attempt not due yet: left invisible until it is.
          ...(n === 5 && { attempt: 1, waitSeconds: 300 }),
        }),
      })),
    }),
  );
  const config = local.asSandbox('deliver');
  const client = makeDocumentClient(config);
  const handle = makeDeliverHandler({
    subscriptions: new SubscriptionsTable(client, SUBSCRIPTIONS_TABLE.localName),
    secrets: new OpenedSecrets(kmsSecretBox(LOCAL_SECRETS_KEY_ALIAS, new KMSClient(config))),
    policy: { allowLoopback: true },
    queue: sqsDeliveryQueue(deliveries, new SQSClient(config)),
    deadLetters: sqsDeadLetters(
      localQueueUrl(local.engine.endpoint, LOCAL_QUEUE_NAMES.deadLetters),
      new SQSClient(config),
    ),
    receivers: { states: new ReceiverStates(client, SUBSCRIPTIONS_TABLE.localName) },
    queueRetryPausesMs: [],
  });
  // As the mapping polls: what is visible, handed over as a batch (real receipt handles, which
  // a wait's ChangeMessageVisibility needs), until every receiver has had its first attempt (on
  // a loaded machine the rate's gate may make one wait a moment and come back).
  const waiting = new Set<string>();
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline && receivers.some((r) => r.received.length === 0)) {
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: deliveries,
        MaxNumberOfMessages: 10,
        VisibilityTimeout: 300,
        WaitTimeSeconds: 1,
      }),
    );
    if (Messages.length === 0) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      continue;
    }
    const answer = await handle(
      {
        Records: Messages.map((m) => ({
          messageId: m.MessageId,
          receiptHandle: m.ReceiptHandle,
          body: m.Body,
          attributes: { ApproximateReceiveCount: '1' },
        })),
      } as unknown as SQSEvent,
      {} as Context,
    );
    // A delivery left waiting is reported, so that the mapping keeps it (it comes back later).
    for (const { itemIdentifier } of answer.batchItemFailures) waiting.add(itemIdentifier);
  }

  expect(local.lines).toEqual([]);
  // The one not due yet waits (ChangeMessageVisibility); each receiver had its attempt, signed
  // with its secret (opened by Decrypt).
  expect(waiting.size).toBeGreaterThan(0);
  expect(receivers.map((r) => r.received.length > 0)).toEqual(Array(5).fill(true));
  expect(receivers.flatMap((r) => r.received.map((d) => d.verified))).not.toContain(false);
  expect(receivers[0]!.delivered().size).toBe(1);
  expect(local.account.unusedGrants().filter((grant) => grant.startsWith('deliver '))).toEqual([]);
});
