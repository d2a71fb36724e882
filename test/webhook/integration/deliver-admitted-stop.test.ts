/**
 * What a receiver says stops the deliveries its batch already admitted, on a real engine and
 * the local SQS: a batch's deliveries to one subscriber are granted starts spread over the
 * next second, and each looks again, at its start, at what the sandbox heard meanwhile. After a
 * 429 with `Retry-After` to the first one, the others wait for the hold (no attempt spent);
 * after a 410, they are dropped and kept for `enable`. Either way the receiver gets nothing
 * more from that batch. The receiver's answer is injected, so that it is heard before the next
 * start (a real one answers over a socket, at no fixed time). The subscriber's rate spaces the
 * starts 156 ms apart, all five within the second a sandbox is granted at once: the first
 * delivery's own work before its answer (opening the secret, signing) must end before the next
 * start, and at the default 100 a second (12.5 ms apart) a busy machine's scheduler alone lost
 * that race.
 */
import { ReceiveMessageCommand, SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { makeDeliverHandler } from '../../../lambda/deliver/handler';
import type { Attempt } from '../../../lambda/deliver/post';
import { PUBLIC_ONLY } from '../../../lambda/webhook/address-policy';
import { sqsDeadLetters, sqsDeliveryQueue } from '../../../lambda/webhook/delivery-queue';
import type { DeliveryMessage } from '../../../lambda/webhook/message';
import { OpenedSecrets } from '../../../lambda/webhook/secrets';
import { generateSecret } from '../../../lambda/webhook/signature';
import { useEngineWithQueues } from '../../support/engine-with-queues';
import { TEST_SECRET_BOX } from '../../support/secret-box';

const w = useEngineWithQueues();
const BATCH = 5;
/** Requests a second: starts 156.25 ms apart (`spacingMs`), six in the second granted at once. */
const RATE = 8;

let n = 0;
async function subscriber(): Promise<string> {
  const subscriberId = `sub_admitted${++n}`;
  await w.subscriptions.add({
    subscriberId,
    url: 'https://receiver.example/hook',
    name: subscriberId,
    createdAt: new Date().toISOString(),
    secret: await TEST_SECRET_BOX.seal(generateSecret(), subscriberId),
  });
  await w.states.setRate(subscriberId, RATE);
  return subscriberId;
}

/** Queues `BATCH` deliveries to `subscriberId` and receives them as one batch. */
async function batch(subscriberId: string): Promise<SQSRecord[]> {
  await w.sqs.send(
    new SendMessageBatchCommand({
      QueueUrl: w.urls.deliveries,
      Entries: Array.from({ length: BATCH }, (_, i) => ({
        Id: String(i),
        MessageBody: JSON.stringify({
          webhookId: `msg_${subscriberId}_${i}`,
          subscriberId,
          plantId: String(i),
          body: `{"id":${i},"name":"fern"}`,
          storedAt: new Date(Date.now() - 60_000 + i).toISOString(),
        } satisfies DeliveryMessage),
      })),
    }),
  );
  const records: SQSRecord[] = [];
  while (records.length < BATCH) {
    const { Messages = [] } = await w.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: w.urls.deliveries,
        MaxNumberOfMessages: 10,
        VisibilityTimeout: 600,
      }),
    );
    for (const m of Messages) {
      if (!m.Body!.includes(`"subscriberId":"${subscriberId}"`)) continue;
      records.push({
        messageId: m.MessageId!,
        receiptHandle: m.ReceiptHandle!,
        body: m.Body!,
        attributes: m.Attributes as unknown as SQSRecord['attributes'],
      } as SQSRecord);
    }
  }
  return records;
}

/** A handler whose receiver answers `first` to its first request and 204 after; what it was sent. */
function handler(first: Attempt) {
  const posted: string[] = [];
  const copies: DeliveryMessage[] = [];
  const queue = sqsDeliveryQueue(w.urls.deliveries, w.sqs);
  const handle = makeDeliverHandler({
    subscriptions: w.subscriptions,
    secrets: new OpenedSecrets(TEST_SECRET_BOX),
    policy: PUBLIC_ONLY,
    post: async (_url, headers) => {
      posted.push(headers['webhook-id']!);
      return posted.length === 1 ? first : { status: 204 };
    },
    queue: { ...queue, send: async (messages) => void copies.push(...messages) },
    deadLetters: sqsDeadLetters(w.urls.deadLetters, w.sqs),
    receivers: { states: w.states },
    queueRetryPausesMs: [1],
  });
  const run = (records: SQSRecord[]) => handle({ Records: records } as SQSEvent, {} as Context);
  return { run, posted, copies };
}

it('after a 429 with Retry-After to its first request, the batch sends that receiver nothing more: the rest wait, no attempt spent', async () => {
  const id = await subscriber();
  const records = await batch(id);
  const h = handler({ status: 429, retryAfter: '60' });
  const answer = await h.run(records);
  expect(h.posted).toHaveLength(1);
  // The answered one's next attempt waits the Retry-After; the others wait in the queue (held).
  expect(h.copies).toEqual([
    expect.objectContaining({ webhookId: h.posted[0], attempt: 1, waitSeconds: 60 }),
  ]);
  expect(answer.batchItemFailures).toHaveLength(BATCH - 1);
  expect((await w.states.read(id))!.nextSendAt).toBeGreaterThan(Date.now() + 50_000);
});

it('after a 410 to its first request, the batch sends that receiver nothing more: the rest are kept for enable', async () => {
  const id = await subscriber();
  const records = await batch(id);
  const h = handler({ status: 410 });
  const answer = await h.run(records);
  expect(h.posted).toHaveLength(1);
  expect(h.copies).toEqual([]);
  expect(answer.batchItemFailures).toEqual([]);
  const state = (await w.states.read(id))!;
  expect(state.disabledAt).toBeDefined();
  // `enable` replays from the oldest plant of the batch, whichever delivery heard the 410.
  const oldest = records.map((r) => JSON.parse(r.body).storedAt as string).sort()[0];
  expect(state.replayFrom).toBe(oldest);
});
