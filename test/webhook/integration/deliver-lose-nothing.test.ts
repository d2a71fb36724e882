/**
 * The deliver handler at the edges where a delivery could be lost, on a real engine and the
 * local SQS (both refuse what AWS refuses): every visibility it asks stays inside SQS's 12 h
 * from the receive (a copy's 10 h step plus its jitter, a `Retry-After` hold on a later
 * receive), and a delivery to a disabled subscriber is done with only once `enable`'s replay
 * point covers it (a failed write leaves the message to come back).
 */
import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { makeDeliverHandler } from '../../../lambda/deliver/handler';
import { PUBLIC_ONLY } from '../../../lambda/webhook/address-policy';
import { sqsDeadLetters, sqsDeliveryQueue } from '../../../lambda/webhook/delivery-queue';
import type { DeliveryMessage } from '../../../lambda/webhook/message';
import type { ReceiverStates } from '../../../lambda/webhook/receiver-state';
import { SAFETY_RECEIVE_COUNT } from '../../../lambda/webhook/schedule';
import { useEngineWithQueues } from '../../support/engine-with-queues';

const w = useEngineWithQueues();

// Only the clock is faked: the engine, the queue and the handler read it in this process.
const T0 = Date.parse('2026-03-01T00:00:00.000Z');
const HOUR = 3_600_000;
beforeEach(() => {
  jest.useFakeTimers({ now: T0, doNotFake: ['setTimeout', 'setImmediate', 'nextTick'] });
});
afterEach(async () => {
  // Whatever a test left on the queue (a failed one) is gone before the next.
  at(1_000 * HOUR);
  for (let left = await receive(); left; left = await receive()) await settle(left);
  jest.useRealTimers();
});

let n = 0;
async function subscriber(): Promise<string> {
  const subscriberId = `sub_edge${++n}`;
  await w.subscriptions.add({
    subscriberId,
    url: 'https://receiver.example/hook',
    name: subscriberId,
    createdAt: new Date(T0 - 24 * HOUR).toISOString(),
    secret: 'sealed',
  });
  return subscriberId;
}

/** The handler over the local queue and the engine; nothing here reaches a receiver. */
function handler(receiverStates: ReceiverStates = w.states) {
  const handle = makeDeliverHandler({
    subscriptions: w.subscriptions,
    secrets: {
      open: () => Promise.reject(new Error('no delivery here gets as far as its secret')),
    },
    policy: PUBLIC_ONLY,
    queue: sqsDeliveryQueue(w.urls.deliveries, w.sqs),
    deadLetters: sqsDeadLetters(w.urls.deadLetters, w.sqs),
    receivers: { states: receiverStates },
    queueRetryPausesMs: [1],
  });
  return (record: SQSRecord) => handle({ Records: [record] } as SQSEvent, {} as Context);
}

function delivery(subscriberId: string, extra: Partial<DeliveryMessage> = {}): DeliveryMessage {
  return {
    webhookId: `msg_${subscriberId}`,
    subscriberId,
    plantId: '7',
    body: '{"id":7,"name":"fern"}',
    storedAt: new Date(T0 - HOUR).toISOString(),
    ...extra,
  };
}

async function send(message: DeliveryMessage): Promise<void> {
  await w.sqs.send(
    new SendMessageCommand({ QueueUrl: w.urls.deliveries, MessageBody: JSON.stringify(message) }),
  );
}

/** The message visible now, as Lambda's SQS event gives it, or `undefined` when none is. */
async function receive(): Promise<SQSRecord | undefined> {
  const { Messages = [] } = await w.sqs.send(
    new ReceiveMessageCommand({ QueueUrl: w.urls.deliveries }),
  );
  const [m] = Messages;
  if (!m) return undefined;
  return {
    messageId: m.MessageId!,
    receiptHandle: m.ReceiptHandle!,
    body: m.Body!,
    attributes: m.Attributes as unknown as SQSRecord['attributes'],
    messageAttributes: {},
    md5OfBody: m.MD5OfBody!,
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:local:000000000000:plant-store-deliveries',
    awsRegion: 'local',
  };
}

/** Moves the (fake) clock to `ms` after T0. */
const at = (ms: number) => jest.setSystemTime(T0 + ms);

it("a copy's 10 h step at its longest jitter (12 h), asked 30 s after the receive, is cut to what is left", async () => {
  const id = await subscriber();
  await send(delivery(id, { attempt: 7, waitSeconds: 43_200 }));
  const record = (await receive())!;
  // Lambda's poller received it, then the function started: 30 s later.
  at(30_000);
  expect(await handler()(record)).toEqual({
    batchItemFailures: [{ itemIdentifier: record.messageId }],
  });
  // The queue took the change: not back after its 180 s visibility timeout, nor 12 h after the
  // call; back once the 12 h from the receive (less the margin) are over.
  at(12 * HOUR - 10_000);
  expect(await receive()).toBeUndefined();
  at(12 * HOUR);
  const again = (await receive())!;
  expect(again.messageId).toBe(record.messageId);
  expect(again.attributes.ApproximateReceiveCount).toBe('2');
  await settle(again);
});

it('a Retry-After hold of 12 h met on a later receive is cut to what the receive allows', async () => {
  const id = await subscriber();
  await send(delivery(id));
  const first = (await receive())!;
  // Received once long ago (our own failure, say), and now again.
  await w.sqs.send(
    new ChangeMessageVisibilityCommand({
      QueueUrl: w.urls.deliveries,
      ReceiptHandle: first.receiptHandle,
      VisibilityTimeout: 0,
    }),
  );
  at(20 * HOUR);
  const record = (await receive())!;
  expect(record.attributes.ApproximateReceiveCount).toBe('2');
  // 30 s after the receive, the receiver has just asked everyone to hold off 12 h.
  at(20 * HOUR + 30_000);
  await w.states.holdUntil(id, Date.now() + 12 * HOUR);
  expect(await handler()(record)).toEqual({
    batchItemFailures: [{ itemIdentifier: record.messageId }],
  });
  at(20 * HOUR + 11 * HOUR);
  expect(await receive()).toBeUndefined();
  at(20 * HOUR + 12 * HOUR);
  await settle((await receive())!);
});

it('a delivery dropped for a disabled subscriber is done with only once its replay point is written', async () => {
  const id = await subscriber();
  const later = new Date(T0 - HOUR).toISOString();
  const older = new Date(T0 - 5 * HOUR).toISOString();
  expect(await w.states.disable(id, new Date(T0).toISOString(), '410 Gone', later)).toBe(true);
  await send(delivery(id, { storedAt: older }));
  const record = (await receive())!;
  // The write that keeps it is refused (injected: the engine cannot fail one write on cue).
  const refusing = Object.assign(Object.create(w.states) as ReceiverStates, {
    keepForReplay: () => Promise.reject(new Error('the table refused the write')),
  });
  expect(await handler(refusing)(record)).toEqual({
    batchItemFailures: [{ itemIdentifier: record.messageId }],
  });
  expect((await w.states.read(id))?.replayFrom).toBe(later);
  // It comes back soon (our failure: minutes, not its 180 s visibility timeout's whole), and
  // this time the point is kept before the message is done with.
  at(10 * 60_000);
  const again = (await receive())!;
  expect(again.messageId).toBe(record.messageId);
  expect(await handler()(again)).toEqual({ batchItemFailures: [] });
  expect((await w.states.read(id))?.replayFrom).toBe(older);
});

it('a delivery to a subscriber enabled while it was being dropped goes back to be delivered', async () => {
  const id = await subscriber();
  const point = new Date(T0 - HOUR).toISOString();
  await w.states.disable(id, new Date(T0).toISOString(), '410 Gone', point);
  await send(delivery(id, { storedAt: new Date(T0 - 5 * HOUR).toISOString() }));
  const record = (await receive())!;
  // `enable` runs between the batch's read (disabled) and the write that would keep this one:
  // its replay starts at `point`, after this plant.
  const racing = Object.assign(Object.create(w.states) as ReceiverStates, {
    keepForReplay: async (subscriberId: string, storedAt: string) => {
      await w.states.enable(subscriberId);
      return w.states.keepForReplay(subscriberId, storedAt);
    },
  });
  expect(await handler(racing)(record)).toEqual({
    batchItemFailures: [{ itemIdentifier: record.messageId }],
  });
  expect(await w.states.read(id)).toMatchObject({ replayFrom: point });
  expect((await w.states.read(id))?.disabledAt).toBeUndefined();
  await settle(await waitFor(receive));
});

it('a delivery sent back to wait many times is never dead-lettered: past half the safety net it waits as a fresh copy, its attempts unchanged', async () => {
  const id = await subscriber();
  const original = delivery(id, { attempt: 3, firstAttemptAt: T0 - HOUR });
  await send(original);
  // Held, again and again (a long backlog for the rate waits the same way): each receive sends
  // it back to wait, twice the safety net's receives in all.
  const messageIds = new Set<string>();
  for (let receives = 0; receives < 2 * SAFETY_RECEIVE_COUNT; receives++) {
    at(receives * 10_000);
    await w.states.holdUntil(id, Date.now() + 5_000);
    const record = (await receive())!;
    messageIds.add(record.messageId);
    expect(Number(record.attributes.ApproximateReceiveCount)).toBeLessThan(SAFETY_RECEIVE_COUNT);
    const body = JSON.parse(record.body) as DeliveryMessage;
    expect({ ...body, waitSeconds: undefined }).toEqual(original);
    // As Lambda does: a message the handler did not report failed is deleted.
    const { batchItemFailures } = await handler()(record);
    if (batchItemFailures.length === 0) await settle(record);
  }
  // The original and its fresh copies, one after another.
  expect(messageIds.size).toBeGreaterThanOrEqual(3);
  const { Messages } = await w.sqs.send(
    new ReceiveMessageCommand({ QueueUrl: w.urls.deadLetters }),
  );
  expect(Messages ?? []).toEqual([]);
});

/** Deletes a received message, so that each test starts from an empty queue. */
async function settle(record: SQSRecord): Promise<void> {
  await w.sqs.send(
    new DeleteMessageCommand({ QueueUrl: w.urls.deliveries, ReceiptHandle: record.receiptHandle }),
  );
}

/** Moves the clock a second at a time until `get` answers (at most a minute). */
async function waitFor<T>(get: () => Promise<T | undefined>): Promise<T> {
  for (let s = 1; s <= 60; s++) {
    at(Date.now() - T0 + 1_000);
    const value = await get();
    if (value !== undefined) return value;
  }
  throw new Error('nothing came back within a minute');
}
