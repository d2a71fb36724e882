/**
 * The fan-out against the local SQS over HTTP, through the real SQS client, with faults injected
 * where the queue would have them on a bad day: an entry refused, a call lost on its way (it
 * times out), an answer lost on its way back, the queue down past the invocation's deadline.
 * What the queue holds afterwards is counted by `webhook-id`: every delivery at least once, and
 * twice only what a call whose answer was lost carried, or what followed a record blocked until
 * the deadline (Lambda retries from that record). And what SQS itself refuses, as the local SQS
 * refuses it (a character outside its set, a message or a call over 256 KiB), on every path a
 * delivery takes to a queue: the fan-out, the deliverer's copies and dead letters, the stream
 * failure queue, a replay.
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
import type { SQSClient } from '@aws-sdk/client-sqs';
import { marshall } from '@aws-sdk/util-dynamodb';
import {
  makeSqsClient,
  sqsDeadLetters,
  sqsDeliveryQueue,
  sqsJsonQueue,
} from '../../../lambda/webhook/delivery-queue';
import { parseDeliveryMessage, type DeliveryMessage } from '../../../lambda/webhook/message';
import {
  bodyBytes,
  DELIVERY_HEADROOM_BYTES,
  queueBody,
  SQS_MESSAGE_LIMIT_BYTES,
} from '../../../lambda/webhook/queue-body';
import { replay, replayNotes } from '../../../lib/operator/webhook/replay';
import type { Subscriber } from '../../../lambda/webhook/subscriptions-table';
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
let client: SQSClient;
/** The fan-out's dependencies through a client with the deployed attempt timeout (2 s). */
let timed: FanOutDeps;
/**
 * The same through a client that waits a minute for each attempt: what a test of the fan-out's
 * own resends counts must not depend on this process answering itself within 2 s (on a starved
 * machine the client gave up on calls the server then carried out, and sent them again).
 */
let patient: SQSClient;
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
  const options = { endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS };
  client = makeSqsClient(options);
  patient = makeSqsClient({ ...options, requestHandler: { requestTimeout: 60_000 } });
  const through = (c: SQSClient): FanOutDeps => ({
    subscribers: async () => SUBSCRIBERS,
    queue: sqsDeliveryQueue(queue.options.url, c),
    failures: sqsJsonQueue(failures.options.url, c),
  });
  timed = through(client);
  deps = through(patient);
});
afterEach(async () => {
  client.destroy();
  patient.destroy();
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
  const result = await fanOut(records(1, 40), timed, soon());
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

/**
 * Plants 1 to 100 fanned out while the queue refuses, on its side, the deliveries of the plants
 * `refused` picks, until the invocation's deadline; then what Lambda does next: the batch again,
 * from the record reported, with the queue back.
 */
async function outageThenRetry(refused: (plantId: number) => boolean) {
  let down = true;
  faults = {
    refuseEntry: ({ MessageBody }) =>
      down && refused(Number(parseDeliveryMessage(MessageBody)!.plantId)),
  };
  const first = await fanOut(records(1, 100), deps, { until: Date.now() + 200 });
  down = false;
  const from = Number(first.failedAt?.sequenceNumber);
  const again = await fanOut(records(from, 100), deps, soon());
  return { first, again };
}

it('with the queue down past its deadline, reports where to resume; the retry from there loses nothing and repeats nothing', async () => {
  const { first, again } = await outageThenRetry((plant) => plant >= 50);
  // Plant 50's deliveries share a call with plant 49's, whose own were accepted.
  expect(first.failedAt?.sequenceNumber).toBe('50'.padStart(21, '0'));
  expect(first.queued).toBe(147);
  expect(again).toEqual({ queued: 153, setAside: [] });
  expectEachOnce(300);
});

it('starts no call past its deadline: a slow first wave leaves the rest to the retry, which repeats nothing', async () => {
  // One subscriber, 400 records: 40 calls, 32 at once. The first wave's calls hang until their
  // timeout (the client's own retry then goes through); by then the deadline has passed, so the
  // last 8 calls must not start: they would run past it (Lambda retries the batch when it times out).
  const one = { ...timed, subscribers: async () => SUBSCRIBERS.slice(0, 1) };
  const until = Date.now() + 1_000;
  faults = { call: () => (Date.now() < until ? 'hang' : undefined) };
  const first = await fanOut(records(1, 400), one, { until });
  expect(first.failedAt?.sequenceNumber).toBe('321'.padStart(21, '0'));
  expect(first.queued).toBe(320);
  const again = await fanOut(records(321, 400), one, soon());
  expect(again).toEqual({ queued: 80, setAside: [] });
  expectEachOnce(400);
}, 300_000);

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
      reason: expect.stringMatching(/bytes, too large to queue/),
      record: { ...batch[2], dynamodb: { SequenceNumber: '3'.padStart(21, '0') } },
      imagesOmitted: true,
    },
  ]);
  expect(result.setAside).toEqual(setAside);
});

it('a record blocked mid-batch: the retry from it queues the later records again (the same webhook-ids), and loses nothing', async () => {
  // Plant 40's deliveries alone refused (throttled); the retry from it sends what came after again.
  const { first, again } = await outageThenRetry((plant) => plant === 40);
  expect(first.failedAt?.sequenceNumber).toBe('40'.padStart(21, '0'));
  expect(first.queued).toBe(297);
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

/** Plant `id`'s record as a plant stored before `createdAt` was kept has it: no `createdAt`. */
const oldRecord = (id: number, name: string): DynamoDBRecord => {
  const [record] = records(id, id, () => name);
  const image = { ...record!.dynamodb!.NewImage! };
  delete image.createdAt;
  return { ...record!, dynamodb: { ...record!.dynamodb, NewImage: image } };
};

/** The one delivery of plant `id` named `name`, to the first subscriber. */
const deliveryOf = (id: number, name: string, record = records(id, id, () => name)[0]!) =>
  (recordDeliveries(record, SUBSCRIBERS.slice(0, 1)) as DeliveryMessage[])[0]!;

it("the deliverer's re-queue and dead letter, and the stream failure queue, give back a name with U+FFFE and U+FFFF exactly", async () => {
  const name = 'a\uFFFE\uFFFFb\u{1F331}';
  const copy = { ...deliveryOf(1, name), attempt: 1, waitSeconds: 300, firstAttemptAt: 1 };
  await sqsDeliveryQueue(queue.options.url, client).send([copy]);
  expect(queue.receive(10).map((m) => parseDeliveryMessage(m.body))).toEqual([copy]);
  await sqsDeadLetters(failures.options.url, client).deadLetter(copy);
  const { webhookId, subscriberId, plantId, body } = copy;
  const letters = failures.receive(10).map((m) => JSON.parse(m.body) as unknown);
  expect(letters).toEqual([{ webhookId, subscriberId, plantId, body }]);
  const [record] = records(2, 2, () => name);
  await deps.failures.put({ reason: 'r', record: record! });
  expect(failures.receive(10).map((m) => JSON.parse(m.body) as unknown)).toEqual([
    { reason: 'r', record },
  ]);
});

it('sizes are bytes: a name of 140,000 two-byte characters (280,000 bytes) is too large to queue, its record set aside', async () => {
  const batch = [...records(1, 1), ...records(2, 2, () => 'é'.repeat(140_000)), ...records(3, 3)];
  const result = await fanOut(batch, deps, soon());
  expect(result.failedAt).toBeUndefined();
  expect(result.setAside.map((r) => r.record.eventID)).toEqual(['e2']);
  expectEachOnce(6);
});

it('a delivery at the limit (256 KiB less the room for the deliverer’s copies) is queued, and its largest copy re-queued; a byte more is set aside', async () => {
  const limit = SQS_MESSAGE_LIMIT_BYTES - DELIVERY_HEADROOM_BYTES;
  // A plant stored before `createdAt` was kept: its deliveries carry no `storedAt`, which the
  // deliverer's copies add. ASCII names: one more character is one more byte.
  const nameFor = (id: number, bytes: number) =>
    'x'.repeat(bytes - bodyBytes(queueBody(deliveryOf(id, '', oldRecord(id, '')))));
  const atLimit = nameFor(1, limit);
  const over = nameFor(2, limit + 1);
  expect(bodyBytes(queueBody(deliveryOf(1, atLimit, oldRecord(1, atLimit))))).toBe(limit);
  const one = { ...deps, subscribers: async () => SUBSCRIBERS.slice(0, 1) };
  const result = await fanOut([oldRecord(1, atLimit), oldRecord(2, over)], one, soon());
  expect(result.queued).toBe(1);
  expect(result.setAside.map((r) => r.record.eventID)).toEqual(['e2']);
  // The deliverer's copy after failed attempts, every field it adds at its largest, still fits.
  const [held] = queue.receive(10).map((m) => parseDeliveryMessage(m.body)!);
  expect(held!.storedAt).toBeUndefined();
  const copy = {
    ...held!,
    storedAt: new Date().toISOString(),
    attempt: 12,
    waitSeconds: 43_200,
    firstAttemptAt: Date.now(),
  };
  await sqsDeliveryQueue(queue.options.url, client).send([copy]);
  expect(queue.receive(10).map((m) => parseDeliveryMessage(m.body))).toEqual([copy]);
});

it('a replay skips a delivery too large to queue and names its plant, queues the rest of its page and the pages after, and counts a plant queued to some', async () => {
  const createdAt = '2026-02-01T00:00:00.000Z';
  const item = (id: number, name: string) =>
    marshall({ id, name, createdAt, createdBy: 'tok_a', version: 1 });
  // Two subscribers: the second chose typed events, whose newPlant body is longer; plant 22's
  // delivery fits the first's and not the second's.
  const [plain, other] = SUBSCRIBERS;
  const typed = { ...other!, events: ['newPlant', 'plantUpdated'] } as Subscriber;
  const sizes = (name: string) =>
    (recordDeliveries(records(22, 22, () => name)[0]!, [plain!, typed]) as DeliveryMessage[]).map(
      (d) => bodyBytes(queueBody(d)),
    );
  const [plainBase, typedBase] = sizes('');
  const limit = SQS_MESSAGE_LIMIT_BYTES - DELIVERY_HEADROOM_BYTES;
  const between = 'x'.repeat(limit + 1 - typedBase!);
  const [plainSize, typedSize] = sizes(between);
  expect([plainSize! <= limit, typedSize! > limit, plainBase! < typedBase!]).toEqual([
    true,
    true,
    true,
  ]);
  const huge = 'x'.repeat(300_000);
  const result = await replay(
    { since: new Date('2026-01-15T00:00:00.000Z') },
    {
      plants: {
        storedImages: async function* () {
          yield [item(10, 'small'), item(11, huge), item(12, 'small too')];
          yield [item(21, huge), item(22, between), item(23, 'next page')];
        },
      },
      subscribers: async () => [plain!, typed],
      queue: sqsDeliveryQueue(queue.options.url, client),
    },
  );
  expect(result).toMatchObject({ plants: 4, queued: 7, tooLarge: ['11', '21', '22'] });
  const held = queue.receive(20).map((m) => parseDeliveryMessage(m.body)!);
  expect(held.map((d) => `${d.plantId}:${d.subscriberId}`).sort()).toEqual(
    ['10', '12', '23']
      .flatMap((id) => [`${id}:sub_a`, `${id}:sub_b`])
      .concat('22:sub_a')
      .sort(),
  );
  expect(replayNotes(result)).toEqual([
    'not queued: a delivery of plant 11, 21, 22, too large to queue (stored before the field limits; a receiver can GET the plant)',
  ]);
});
