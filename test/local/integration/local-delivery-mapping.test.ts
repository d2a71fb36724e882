/**
 * The local delivery queue's mapping (`LocalWebhooks`, as `npm start` runs it) with a deliver
 * function that fails: the whole batch comes back, together, once the receive's visibility
 * timeout has passed at the run's retry scale, as Lambda's SQS event source gives back a failed
 * invocation's batch; a message the function reports failed (`batchItemFailures`) comes back
 * alone, after the same scaled timeout; a report naming an identifier not in the batch fails the
 * whole batch, as Lambda treats it.
 */
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DELIVERY_VISIBILITY_SECONDS } from '../../../lambda/webhook/schedule';
import { startEngine, type LocalEngine } from '../../../lib/local/dynamodb/engine';
import { LOCAL_QUEUE_NAMES, localCliClientConfig, localQueueUrl } from '../../../lib/local/names';
import { LocalWebhooks } from '../../../lib/local/webhooks';

/** 180 s of visibility become 1.8 s: longer than the batching window (1 s), far under 180 s. */
const SCALE = 0.01;
const SCALED_VISIBILITY_MS = DELIVERY_VISIBILITY_SECONDS * 1000 * SCALE;

let engine: LocalEngine;
let webhooks: LocalWebhooks;
/** Each invocation's message bodies, in order, and when it began. */
const batches: { bodies: string[]; at: number }[] = [];
type Records = { body: string; messageId: string }[];
/** What the deliver function does with its nth batch (from 0); past the last, all done. */
let answers: ((records: Records) => unknown)[] = [];
beforeAll(async () => {
  webhooks = new LocalWebhooks({ retryScale: SCALE, concurrency: 4, log: () => undefined });
  engine = await startEngine({ intercept: webhooks.intercept });
  webhooks.attach(engine.endpoint);
  webhooks.start(async (_name, event) => {
    const records = (event as { Records: Records }).Records;
    batches.push({ bodies: records.map((r) => r.body).sort(), at: Date.now() });
    return (answers[batches.length - 1] ?? (() => ({})))(records);
  });
});
afterAll(async () => {
  await webhooks.close();
  await engine.close();
});
beforeEach(() => {
  batches.length = 0;
});

async function send(bodies: string[]): Promise<void> {
  const sqs = new SQSClient(localCliClientConfig(engine.endpoint, engine.clientConfig.credentials));
  try {
    await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: localQueueUrl(engine.endpoint, LOCAL_QUEUE_NAMES.deliveries),
        Entries: bodies.map((body) => ({ Id: body, MessageBody: body })),
      }),
    );
  } finally {
    sqs.destroy();
  }
}

/** Waits for `count` invocations; unscaled, a second one would come only after 180 s. */
async function invocations(count: number): Promise<void> {
  const started = Date.now();
  while (batches.length < count && Date.now() - started < SCALED_VISIBILITY_MS * 20) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The gap between invocation `n` and the one before it, in ms. */
const gap = (n: number) => batches[n]!.at - batches[n - 1]!.at;

it("a failed invocation's batch comes back together, a reported failure alone, after the scaled visibility timeout", async () => {
  answers = [
    () => {
      throw new Error('function timed out');
    },
    (records) => ({
      batchItemFailures: records
        .filter((r) => r.body === 'b')
        .map((r) => ({ itemIdentifier: r.messageId })),
    }),
  ];
  await send(['a', 'b', 'c']);
  await invocations(3);
  expect(batches.map((b) => b.bodies)).toEqual([['a', 'b', 'c'], ['a', 'b', 'c'], ['b']]);
  // Each came back no sooner than the scaled timeout after its receive.
  expect(gap(1)).toBeGreaterThanOrEqual(SCALED_VISIBILITY_MS);
  expect(gap(2)).toBeGreaterThanOrEqual(SCALED_VISIBILITY_MS);
});

it.each([
  ['missing', {}, ['d', 'e']],
  ['null', { itemIdentifier: null }, ['f', 'g']],
  ['empty', { itemIdentifier: '' }, ['h', 'i']],
  ['not in the batch', { itemIdentifier: 'another-message' }, ['j', 'k']],
])(
  'a reported failure whose identifier is %s fails the whole batch',
  async (_, failure, bodies) => {
    answers = [() => ({ batchItemFailures: [failure] })];
    await send(bodies);
    await invocations(2);
    expect(batches.map((b) => b.bodies)).toEqual([bodies, bodies]);
    expect(gap(1)).toBeGreaterThanOrEqual(SCALED_VISIBILITY_MS);
  },
);
