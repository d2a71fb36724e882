/**
 * The local delivery queue's mapping (`LocalWebhooks`, as `npm start` runs it) with a deliver
 * function that fails: the whole batch comes back, together, once the receive's visibility
 * timeout has passed at the run's retry scale, as Lambda's SQS event source gives back a failed
 * invocation's batch; a message the function reports failed (`batchItemFailures`) comes back
 * alone, after the same scaled timeout.
 */
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DELIVERY_VISIBILITY_SECONDS } from '../../../lambda/webhook/schedule';
import { startEngine, type LocalEngine } from '../../../lib/local/dynamodb/engine';
import { LOCAL_QUEUE_NAMES, localCliClientConfig, localQueueUrl } from '../../../lib/local/names';
import { LocalWebhooks } from '../../../lib/local/webhooks';

const SCALE = 0.0001;

let engine: LocalEngine;
let webhooks: LocalWebhooks;
/** Each invocation's message bodies, in order. */
const batches: string[][] = [];
beforeAll(async () => {
  webhooks = new LocalWebhooks({ retryScale: SCALE, concurrency: 4, log: () => undefined });
  engine = await startEngine({ intercept: webhooks.intercept });
  webhooks.attach(engine.endpoint);
  webhooks.start(async (_name, event) => {
    const records = (event as { Records: { body: string; messageId: string }[] }).Records;
    batches.push(records.map((r) => r.body).sort());
    // The first invocation fails (a timeout, a crash), the second reports `b` failed, the next
    // answers every message done.
    if (batches.length === 1) throw new Error('function timed out');
    if (batches.length === 2) {
      return {
        batchItemFailures: records
          .filter((r) => r.body === 'b')
          .map((r) => ({ itemIdentifier: r.messageId })),
      };
    }
    return {};
  });
});
afterAll(async () => {
  await webhooks.close();
  await engine.close();
});

it("a failed invocation's batch comes back together, a reported failure alone, after the scaled visibility timeout", async () => {
  const sqs = new SQSClient(localCliClientConfig(engine.endpoint, engine.clientConfig.credentials));
  try {
    await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: localQueueUrl(engine.endpoint, LOCAL_QUEUE_NAMES.deliveries),
        Entries: ['a', 'b', 'c'].map((body) => ({ Id: body, MessageBody: body })),
      }),
    );
  } finally {
    sqs.destroy();
  }
  // Unscaled, each would come back only after 180 s; scaled, after the batching window.
  const started = Date.now();
  while (batches.length < 3 && Date.now() - started < DELIVERY_VISIBILITY_SECONDS * 1000 * 0.1) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  expect(batches).toEqual([['a', 'b', 'c'], ['a', 'b', 'c'], ['b']]);
});
