/**
 * The fan-out's batch under enforcement, with exactly its grants: its own modules, signing as a
 * session of its role, against the local engine and queues. Subscribers chose events (one the
 * default, one all three), and the batch holds every kind of write: a create, a change, a
 * delete's mark, a create over that mark (a MODIFY), a REMOVE and a record that is no plant.
 * Every call is allowed (no denial), every grant it has was used (none to spare), and the
 * delivery queue holds exactly the deliveries each subscriber chose.
 */
import { ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { LOCAL_QUEUE_NAMES, localQueueUrl } from '../../../lib/local/names';
import type { Context, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { makeDocumentClient } from '../../../lambda/aws/dynamodb';
import { SUBSCRIPTIONS_TABLE } from '../../../lambda/aws/tables';
import { makeFanOutHandler } from '../../../lambda/fan-out/handler';
import { sqsDeliveryQueue, sqsJsonQueue } from '../../../lambda/webhook/delivery-queue';
import { parseDeliveryMessage, type DeliveryMessage } from '../../../lambda/webhook/message';
import { SubscriptionsTable } from '../../../lambda/webhook/subscriptions-table';
import { useLocalAccount } from '../../support/local-account';

const local = useLocalAccount();
const MAX = '9223372036854775807';
const AT = '2026-01-01T00:00:00.000Z';
const LATER = '2026-01-02T00:00:00.000Z';

let sequence = 0;
function record(eventName: string, image?: Record<string, unknown>): DynamoDBRecord {
  sequence += 1;
  return {
    eventID: `e${sequence}`,
    eventName,
    dynamodb: {
      Keys: { id: { N: MAX } },
      ...(image ? { NewImage: image } : {}),
      SequenceNumber: String(sequence).padStart(21, '0'),
      StreamViewType: 'NEW_IMAGE',
    },
  } as DynamoDBRecord;
}
const plant = (extra: Record<string, unknown> = {}, createdAt = AT) => ({
  id: { N: MAX },
  name: { S: 'fern' },
  createdAt: { S: createdAt },
  createdBy: { S: 'tok' },
  ...extra,
});

/** Everything on a queue, as the operator reads it. */
async function drain(sqs: SQSClient, name: string): Promise<string[]> {
  const bodies: string[] = [];
  for (;;) {
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: localQueueUrl(local.engine.endpoint, name),
        MaxNumberOfMessages: 10,
        VisibilityTimeout: 300,
      }),
    );
    if (Messages.length === 0) return bodies;
    bodies.push(...Messages.map((m) => m.Body!));
  }
}

it("fans out every kind of write with exactly the fan-out's grants: nothing denied, nothing granted unused", async () => {
  const operator = { ...local.engine.clientConfig, maxAttempts: 1 };
  const admin = new SubscriptionsTable(makeDocumentClient(operator), SUBSCRIPTIONS_TABLE.localName);
  for (const [subscriberId, events] of [
    ['sub_plain', undefined],
    ['sub_all', ['newPlant', 'plantUpdated', 'plantDeleted'] as const],
  ] as const) {
    await admin.add({
      subscriberId,
      url: `https://${subscriberId}.example/`,
      name: subscriberId,
      createdAt: AT,
      ...(events ? { events } : {}),
      secret: 'sealed',
    });
  }
  const config = local.asSandbox('fan-out');
  const table = new SubscriptionsTable(makeDocumentClient(config), SUBSCRIPTIONS_TABLE.localName);
  const queueUrl = (name: string) => localQueueUrl(local.engine.endpoint, name);
  const handle = makeFanOutHandler({
    subscribers: () => table.list(),
    queue: sqsDeliveryQueue(queueUrl(LOCAL_QUEUE_NAMES.deliveries), new SQSClient(config)),
    failures: sqsJsonQueue(queueUrl(LOCAL_QUEUE_NAMES.streamFailures), new SQSClient(config)),
  });
  const batch = [
    record('INSERT', plant()),
    record('MODIFY', plant({ name: { S: 'fern 2' }, version: { N: '2' }, updatedAt: { S: AT } })),
    record('MODIFY', plant({ version: { N: '3' }, deletedAt: { S: LATER } })),
    record('REMOVE'),
    // A create over a deleted plant's tombstone: a MODIFY whose image has no version.
    record('MODIFY', plant({}, LATER)),
    record('MODIFY', { id: { N: '1.5' }, name: { S: 'not a plant' } }),
  ];
  const answer = await handle(
    { Records: batch } as DynamoDBStreamEvent,
    {
      getRemainingTimeInMillis: () => 30_000,
    } as Context,
  );
  expect(answer).toEqual({ batchItemFailures: [] });
  expect(local.lines).toEqual([]);
  expect(local.account.unusedGrants().filter((grant) => grant.startsWith('fan-out '))).toEqual([]);

  const sqs = new SQSClient(operator);
  const queued = (await drain(sqs, LOCAL_QUEUE_NAMES.deliveries)).map(
    (text) => parseDeliveryMessage(text) as DeliveryMessage,
  );
  const seen = queued.map((m) => `${m.subscriberId} ${m.body}`).sort();
  expect(seen).toEqual(
    [
      `sub_all {"type":"newPlant","id":${MAX},"name":"fern","createdAt":"${AT}","version":1}`,
      `sub_all {"type":"newPlant","id":${MAX},"name":"fern","createdAt":"${LATER}","version":1}`,
      `sub_all {"type":"plantDeleted","id":${MAX},"createdAt":"${AT}","version":3}`,
      `sub_all {"type":"plantUpdated","id":${MAX},"name":"fern 2","createdAt":"${AT}","version":2}`,
      `sub_plain {"id":${MAX},"name":"fern"}`,
      `sub_plain {"id":${MAX},"name":"fern"}`,
    ].sort(),
  );
  expect(new Set(queued.map((m) => m.webhookId)).size).toBe(6);
  const failures = await drain(sqs, LOCAL_QUEUE_NAMES.streamFailures);
  expect(failures.map((text) => JSON.parse(text).reason)).toEqual([
    expect.stringMatching(/is not a stored plant/),
  ]);
});
