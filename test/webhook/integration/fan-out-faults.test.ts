/**
 * The fan-out against the local SQS over HTTP, through the real SQS client, with faults injected
 * where the queue would have them on a bad day: an entry refused, a call lost on its way (it
 * times out), an answer lost on its way back, the queue down past the invocation's deadline.
 * What the queue holds afterwards is counted by `webhook-id`: every delivery at least once, and
 * twice only what a call whose answer was lost carried, or what followed a record blocked until
 * the deadline (Lambda retries from that record). And what SQS itself refuses, as the local SQS
 * refuses it: a character outside its set, a message or a call over 256 KiB.
 */
import type { DynamoDBRecord } from 'aws-lambda';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  fanOut,
  recordDeliveries,
  type FanOutDeps,
  type PoisonRecord,
} from '../../../lambda/fan-out/fan-out';
import {
  makeSqsClient,
  sqsDeliveryQueue,
  sqsJsonQueue,
} from '../../../lambda/webhook/delivery-queue';
import { parseDeliveryMessage } from '../../../lambda/webhook/message';
import { webhookIdOf } from '../../../lambda/webhook/signature';
import { LOCAL_REGION } from '../../../lib/local/dynamodb/engine';
import { LocalQueue } from '../../../lib/local/sqs/queue';
import { serveSqs, type SqsFaults } from '../../../lib/local/sqs/api';

/** The bare SQS server here has no gate in front: any keys do. */
const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

const AT = '2026-01-01T00:00:00.000Z';
const SUBSCRIBERS = ['sub_a', 'sub_b', 'sub_c'].map((subscriberId) => ({
  subscriberId,
  url: `https://${subscriberId}.example/`,
  name: subscriberId,
  createdAt: AT,
}));
const records = (
  from: number,
  to: number,
  name = (id: string) => `plant ${id}`,
): DynamoDBRecord[] =>
  Array.from({ length: to - from + 1 }, (_, n) => {
    const id = String(from + n);
    return {
      eventID: `e${id}`,
      eventName: 'INSERT',
      dynamodb: {
        SequenceNumber: id.padStart(21, '0'),
        NewImage: { id: { N: id }, name: { S: name(id) }, createdAt: { S: AT } },
      },
    };
  });

let server: Server;
let faults: SqsFaults = {};
let queue: LocalQueue;
/** The stream failure queue, on the same local SQS. */
let failures: LocalQueue;
let deps: FanOutDeps;

beforeEach(async () => {
  faults = {};
  server = createServer((req, res) => serveSqs(req, res, [queue, failures], faults));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const localQueue = (name: string) =>
    new LocalQueue({
      name,
      url: `${endpoint}/000000000000/${name}`,
      arn: `arn:aws:sqs:local:000000000000:${name}`,
      visibilityTimeoutSeconds: 60,
    });
  queue = localQueue('deliveries');
  failures = localQueue('stream-failures');
  const client = makeSqsClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  deps = {
    subscribers: async () => SUBSCRIBERS,
    queue: sqsDeliveryQueue(queue.options.url, client),
    failures: sqsJsonQueue(failures.options.url, client),
  };
});
afterEach(async () => {
  queue.close();
  failures.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** How many times the queue holds each `webhook-id`. */
function heldByWebhookId(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const message of queue.receive(Number.MAX_SAFE_INTEGER)) {
    const id = parseDeliveryMessage(message.body)!.webhookId;
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}

/** The queue holds `count` distinct deliveries, each once. */
function expectEachOnce(count: number): void {
  const held = heldByWebhookId();
  expect(held.size).toBe(count);
  expect([...held.values()].filter((times) => times !== 1)).toEqual([]);
}

const soon = () => ({ until: Date.now() + 10_000 });

it('queues 100 records at three subscribers in 30 calls, each delivery once', async () => {
  let calls = 0;
  faults = { call: () => void calls++ };
  const result = await fanOut(records(1, 100), deps, soon());
  expect(result).toEqual({ queued: 300, setAside: [] });
  expect(calls).toBe(30);
  expectEachOnce(300);
});

it('sends again only the entries the queue refused: every delivery once', async () => {
  const refusedOnce = new Set<string>();
  let refusals = 0;
  faults = {
    // One entry in four refused the first time it is seen (the queue throttled, on its side).
    refuseEntry: ({ MessageBody }) => {
      const id = parseDeliveryMessage(MessageBody)!.webhookId;
      if (refusedOnce.has(id) || id.charCodeAt(id.length - 1) % 4 !== 0) return false;
      refusedOnce.add(id);
      refusals++;
      return true;
    },
  };
  const result = await fanOut(records(1, 100), deps, soon());
  expect(refusals).toBeGreaterThan(0);
  expect(result).toEqual({ queued: 300, setAside: [] });
  expectEachOnce(300);
});

it('sends again a call lost on its way, after its timeout: every delivery once', async () => {
  let calls = 0;
  faults = { call: () => (++calls === 2 ? 'hang' : undefined) };
  const result = await fanOut(records(1, 40), deps, soon());
  expect(result).toEqual({ queued: 120, setAside: [] });
  expect(calls).toBe(13);
  expectEachOnce(120);
});

it('sends again a call whose answer was lost: only its ten entries can be held twice', async () => {
  let calls = 0;
  faults = { call: () => (++calls === 2 ? 'lose-answer' : undefined) };
  const result = await fanOut(records(1, 40), deps, soon());
  expect(result).toEqual({ queued: 120, setAside: [] });
  const held = heldByWebhookId();
  expect(held.size).toBe(120);
  const twice = [...held].filter(([, count]) => count > 1);
  expect(twice.length).toBe(10);
  expect(twice.every(([, count]) => count === 2)).toBe(true);
});

it('with the queue down past its deadline, reports where to resume; the retry from there loses nothing and repeats nothing', async () => {
  let down = true;
  faults = {
    refuseEntry: ({ MessageBody }) =>
      down && Number(parseDeliveryMessage(MessageBody)!.plantId) >= 50,
  };
  const first = await fanOut(records(1, 100), deps, { until: Date.now() + 200 });
  // Plant 50's deliveries share a call with plant 49's, whose own were accepted.
  expect(first.failedAt?.sequenceNumber).toBe('50'.padStart(21, '0'));
  expect(first.queued).toBe(147);
  down = false;
  // What Lambda does next: the batch again, from the record reported.
  const again = await fanOut(records(50, 100), deps, soon());
  expect(again).toEqual({ queued: 153, setAside: [] });
  expectEachOnce(300);
});

it('starts no call past its deadline: a slow first wave leaves the rest to the retry, which repeats nothing', async () => {
  // One subscriber, 400 records: 40 calls, 32 at once. The first wave's calls hang until their
  // timeout (the client's own retry then goes through); by then the deadline has passed, so the
  // last 8 calls must not start: they would run past it (Lambda retries the batch when it times out).
  const one = { ...deps, subscribers: async () => SUBSCRIBERS.slice(0, 1) };
  const until = Date.now() + 1_000;
  faults = { call: () => (Date.now() < until ? 'hang' : undefined) };
  const first = await fanOut(records(1, 400), one, { until });
  expect(first.failedAt?.sequenceNumber).toBe('321'.padStart(21, '0'));
  expect(first.queued).toBe(320);
  const again = await fanOut(records(321, 400), one, soon());
  expect(again).toEqual({ queued: 80, setAside: [] });
  expectEachOnce(400);
}, 60_000);

it('a plant whose name holds U+FFFE and U+FFFF (characters SQS refuses): its deliveries are queued, and read back exactly', async () => {
  const batch = records(1, 3, (id) => `a\uFFFE${id}\uFFFFb`);
  const result = await fanOut(batch, deps, soon());
  expect(result).toEqual({ queued: 9, setAside: [] });
  const owed = batch.flatMap((record) => recordDeliveries(record, SUBSCRIBERS) as object[]);
  const held = queue.receive(Number.MAX_SAFE_INTEGER).map((m) => parseDeliveryMessage(m.body));
  expect(held).toEqual(owed);
  expect(held[0]!.body).toContain('a\uFFFE1\uFFFFb');
});

it('deliveries of ~30 KiB each: no call passes 256 KiB in all, each delivery once', async () => {
  // Plants stored before the field limits (a name of 30,000 characters), one subscriber.
  const one = { ...deps, subscribers: async () => SUBSCRIBERS.slice(0, 1) };
  let calls = 0;
  faults = { call: () => void calls++ };
  const result = await fanOut(
    records(1, 20, (id) => id.repeat(30_000 / id.length)),
    one,
    soon(),
  );
  expect(result).toEqual({ queued: 20, setAside: [] });
  expect(calls).toBe(3); // eight, eight and four: ten would be ~300 KiB
  expectEachOnce(20);
});

it('a delivery larger than SQS takes: its record goes to the failure queue without its images, and the rest is queued', async () => {
  const batch = [...records(1, 2), ...records(3, 3, () => 'x'.repeat(300_000)), ...records(4, 5)];
  const result = await fanOut(batch, deps, soon());
  expect(result.failedAt).toBeUndefined();
  expect(result.queued).toBe(12);
  expectEachOnce(12);
  const setAside = failures
    .receive(Number.MAX_SAFE_INTEGER)
    .map((m) => JSON.parse(m.body) as PoisonRecord);
  expect(setAside).toEqual([
    {
      reason: expect.stringMatching(/bytes, over the 262144 SQS takes/),
      record: { ...batch[2], dynamodb: { SequenceNumber: '3'.padStart(21, '0') } },
      imagesOmitted: true,
    },
  ]);
  expect(result.setAside).toEqual(setAside);
});

it('a record blocked mid-batch: the retry from it queues the later records again (the same webhook-ids), and loses nothing', async () => {
  let down = true;
  // Plant 40's deliveries refused on the queue's side (throttled) until its deadline.
  faults = {
    refuseEntry: ({ MessageBody }) => down && parseDeliveryMessage(MessageBody)!.plantId === '40',
  };
  const first = await fanOut(records(1, 100), deps, { until: Date.now() + 200 });
  expect(first.failedAt?.sequenceNumber).toBe('40'.padStart(21, '0'));
  expect(first.queued).toBe(297);
  down = false;
  // Lambda retries from the record reported: what came after it is sent again.
  const again = await fanOut(records(40, 100), deps, soon());
  expect(again).toEqual({ queued: 183, setAside: [] });
  const held = heldByWebhookId();
  expect(held.size).toBe(300);
  const times = (plant: number) =>
    SUBSCRIBERS.map(({ subscriberId }) => held.get(webhookIdOf(subscriberId, String(plant), AT)));
  expect([times(1), times(39), times(40), times(41), times(100)]).toEqual([
    [1, 1, 1],
    [1, 1, 1],
    [1, 1, 1],
    [2, 2, 2],
    [2, 2, 2],
  ]);
});
