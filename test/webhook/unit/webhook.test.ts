/**
 * The webhook's pure parts: signatures that `standardwebhooks` verifies, webhook ids, the NewPlant
 * body from a stream image (int64 edges), the retry schedule, the address policy, the fan-out's
 * ordering and the OpenAPI description.
 */
import type { DynamoDBRecord } from 'aws-lambda';
import { Webhook } from 'standardwebhooks';
import { addressRefusal, PUBLIC_ONLY, urlRefusal } from '../../../lambda/webhook/address-policy';
import { fanOut } from '../../../lambda/fan-out/fan-out';
import { freshSubscribers } from '../../../lambda/fan-out/fresh-subscribers';
import { sqsBatches, SQS_MESSAGE_LIMIT_BYTES } from '../../../lambda/webhook/queue-body';
import {
  SUBSCRIBERS_FRESH_SECONDS,
  subscribersFreshSecondsOf,
  WEBHOOK_ENVIRONMENT,
} from '../../../lambda/webhook/config';
import { deliveriesOf } from '../../../lambda/webhook/deliveries';
import { writeOf } from '../../../lambda/webhook/events';
import type { BatchEntry, RefusedEntry } from '../../../lambda/webhook/delivery-queue';
import { newPlantBody, type DeliveryMessage } from '../../../lambda/webhook/message';
import {
  HORIZON_SECONDS,
  MAX_ATTEMPTS,
  RETRY_DELAYS_SECONDS,
  retryDelaySeconds,
} from '../../../lambda/webhook/schedule';
import { generateSecret, sign, webhookIdOf } from '../../../lambda/webhook/signature';
import { buildDocument } from '../../../lib/generators/openapi/document';
import { redact } from '../../../lambda/observability/powertools';

describe('signature', () => {
  it('is verified by the standardwebhooks package, and only for the body signed', () => {
    const secret = generateSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const body = '{"id":9223372036854775807,"name":"max"}';
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = {
      'webhook-id': 'msg_abc',
      'webhook-timestamp': String(timestamp),
      'webhook-signature': sign(secret, 'msg_abc', timestamp, body),
    };
    expect(new Webhook(secret).verify(body, headers, { jsonParse: false })).toBeUndefined();
    expect(() => new Webhook(secret).verify(body.replace('max', 'min'), headers)).toThrow();
    expect(() => new Webhook(generateSecret()).verify(body, headers)).toThrow();
  });

  it('never reaches a log line: redact removes anything shaped like a secret', () => {
    const secret = generateSecret();
    expect(redact(`failed with ${secret} in it`)).toBe('failed with [redacted] in it');
  });

  it('gives one id per subscriber and stored plant (id and createdAt), derivable from the tables', () => {
    const at = '2026-01-01T00:00:00.000Z';
    const a = webhookIdOf('sub_a', '1', at);
    expect(a).toBe(webhookIdOf('sub_a', '1', at));
    expect(a).toMatch(/^msg_[\w-]{27}$/);
    const others = [
      webhookIdOf('sub_b', '1', at),
      webhookIdOf('sub_a', '2', at),
      // The same id deleted and created again is another plant.
      webhookIdOf('sub_a', '1', '2026-01-01T00:00:00.001Z'),
    ];
    expect(new Set([a, ...others]).size).toBe(4);
  });
});

describe('NewPlant body from a stream image', () => {
  it.each([
    ['9223372036854775807', '{"id":9223372036854775807,"name":"n"}'],
    ['-9223372036854775808', '{"id":-9223372036854775808,"name":"n"}'],
    ['9007199254740993', '{"id":9007199254740993,"name":"n"}'],
  ])('keeps every digit of %s', (id, body) => {
    expect(newPlantBody({ id: { N: id }, name: { S: 'n' } }).body).toBe(body);
  });

  it('writes the tag only when set, and nothing else (createdAt, createdBy stay)', () => {
    const image = { id: { N: '1' }, name: { S: 'a "b"' }, tag: { S: 't' }, createdBy: { S: 'x' } };
    expect(newPlantBody(image)).toEqual({
      plantId: '1',
      body: '{"id":1,"name":"a \\"b\\"","tag":"t"}',
    });
  });

  it('refuses an image that is not a plant', () => {
    expect(() => newPlantBody({ id: { N: '1.5' }, name: { S: 'x' } })).toThrow(
      /not a stored plant/,
    );
  });
});

describe('retry schedule', () => {
  it('waits 5 s, 5 min, 30 min, 2 h, 5 h, then 10 h until past 72 h, up to 20 % longer, then gives up', () => {
    expect(RETRY_DELAYS_SECONDS).toEqual([5, 300, 1800, 7200, 18000, ...Array(7).fill(36000)]);
    expect(MAX_ATTEMPTS).toBe(13);
    expect(HORIZON_SECONDS).toBe(279_305);
    expect(HORIZON_SECONDS).toBeGreaterThanOrEqual(72 * 3600);
    RETRY_DELAYS_SECONDS.forEach((nominal, n) => {
      expect(retryDelaySeconds(n + 1, () => 0)).toBe(nominal);
      expect(retryDelaySeconds(n + 1, () => 1)).toBe(Math.round(nominal * 1.2));
      // SQS's longest visibility timeout, 12 h, holds every step with its jitter.
      expect(retryDelaySeconds(n + 1, () => 1)).toBeLessThanOrEqual(43_200);
    });
    expect(retryDelaySeconds(MAX_ATTEMPTS)).toBeUndefined();
  });
});

describe('address policy', () => {
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    'fe80::1',
    'fd00::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '::ffff:7f00:1',
    '0:0:0:0:0:ffff:a9fe:a9fe',
    '224.0.0.1',
    // IPv4-compatible (::a.b.c.d) and IPv4-translated (::ffff:0:a.b.c.d): never public.
    '::127.0.0.1',
    '::8.8.8.8',
    '::a00:1',
    '::ffff:0:127.0.0.1',
    '::ffff:0:8.8.8.8',
    '0:0:0:0:ffff:0:a00:1',
  ])('refuses %s when deployed', (address) => {
    expect(addressRefusal(address, PUBLIC_ONLY)).toMatch(/not a public address/);
  });

  it.each(['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946', '1.1.1.1'])(
    'allows the public %s',
    (address) => {
      expect(addressRefusal(address, PUBLIC_ONLY)).toBeUndefined();
    },
  );

  it('allows loopback and http only locally', () => {
    const local = { allowLoopback: true };
    expect(addressRefusal('127.0.0.1', local)).toBeUndefined();
    expect(addressRefusal('10.0.0.1', local)).toMatch(/not a public/);
    expect(urlRefusal(new URL('http://127.0.0.1/'), local)).toBeUndefined();
    expect(urlRefusal(new URL('http://example.com/'), PUBLIC_ONLY)).toMatch(/must be https/);
    expect(urlRefusal(new URL('ftp://example.com/'), local)).toMatch(/must be https or http/);
  });
});

describe('fan-out', () => {
  const AT = '2026-01-01T00:00:00.000Z';
  const record = (sequence: string, eventName: 'INSERT' | 'MODIFY' = 'INSERT') =>
    ({
      eventID: `e${sequence}`,
      eventName,
      dynamodb: {
        SequenceNumber: sequence,
        NewImage: {
          id: { N: sequence },
          name: { S: 'p' },
          createdAt: { S: AT },
          // A MODIFY here is a change (version 2): owed only to subscribers of plantUpdated.
          ...(eventName === 'MODIFY' ? { version: { N: '2' }, updatedAt: { S: AT } } : {}),
        },
      },
    }) as DynamoDBRecord;
  const subscribers = async () => [
    { subscriberId: 'sub_a', url: 'https://a.example/', name: 'a', createdAt: '' },
    { subscriberId: 'sub_b', url: 'https://b.example/', name: 'b', createdAt: AT },
    // Added after the plant was stored: not owed it by replay, but the fan-out takes it.
    {
      subscriberId: 'sub_late',
      url: 'https://c.example/',
      name: 'c',
      createdAt: '2026-01-01T00:00:00.001Z',
    },
  ];
  const noFailures = { put: async () => undefined };
  const soon = () => ({ until: Date.now() + 5_000 });
  /** A queue that records each call's entries and refuses what `refuse` says. */
  const recordingQueue = (
    refuse: (id: string, call: number) => RefusedEntry | undefined = () => undefined,
  ) => {
    const calls: DeliveryMessage[][] = [];
    return {
      calls,
      sendBatch: async (entries: readonly BatchEntry[]) => {
        const call = calls.push(entries.map((e) => e.message)) - 1;
        return entries.flatMap((e) => refuse(e.id, call) ?? []);
      },
    };
  };
  const records = (count: number) => Array.from({ length: count }, (_, n) => record(String(n + 1)));

  it('queues one delivery per subscriber of that moment and insert (a change: none to newPlant subscribers), ten to a call across records', async () => {
    const queue = recordingQueue();
    const batch = [...records(25), record('26', 'MODIFY')];
    const result = await fanOut(batch, { subscribers, queue, failures: noFailures }, soon());
    expect(result).toEqual({ queued: 75, setAside: [] });
    // 75 deliveries: seven calls of ten and one of five, whatever record each comes from.
    expect(queue.calls.map((call) => call.length)).toEqual([10, 10, 10, 10, 10, 10, 10, 5]);
    const sent = queue.calls.flat().map((d) => `${d.plantId}:${d.subscriberId}`);
    expect(sent.slice(0, 6)).toEqual([
      '1:sub_a',
      '1:sub_b',
      '1:sub_late',
      '2:sub_a',
      '2:sub_b',
      '2:sub_late',
    ]);
    expect(new Set(sent).size).toBe(75);
    const image = record('1').dynamodb!.NewImage!;
    const owed = deliveriesOf(writeOf('INSERT', image), image, await subscribers(), {
      onlyRegisteredBy: true,
    });
    expect(owed.map((d) => d.subscriberId)).toEqual(['sub_a', 'sub_b']);
    expect(queue.calls[0]![0]!.webhookId).toBe(webhookIdOf('sub_a', '1', AT));
  });

  it('keeps at most inFlight calls at once', async () => {
    let open = 0;
    let most = 0;
    const queue = {
      sendBatch: async () => {
        most = Math.max(most, ++open);
        await new Promise((resolve) => setTimeout(resolve, 5));
        open--;
        return [];
      },
    };
    const result = await fanOut(
      records(100),
      { subscribers, queue, failures: noFailures },
      {
        ...soon(),
        inFlight: 4,
      },
    );
    expect(result.queued).toBe(300);
    expect(most).toBe(4);
  });

  it('sends again only what the queue refused, until it is queued: nothing twice', async () => {
    // Every entry is refused on its first call (throttled), then accepted.
    const queue = recordingQueue((id, call) =>
      call < 3 ? { id, senderFault: false, reason: 'ThrottlingException' } : undefined,
    );
    const result = await fanOut(records(10), { subscribers, queue, failures: noFailures }, soon());
    expect(result).toEqual({ queued: 30, setAside: [] });
    expect(queue.calls.map((call) => call.length)).toEqual([10, 10, 10, 10, 10, 10]);
    const accepted = queue.calls
      .slice(3)
      .flat()
      .map((d) => d.webhookId);
    expect(new Set(accepted).size).toBe(30);
  });

  /**
   * Plants 1 to 20 fanned out while every call carrying plant 7's deliveries fails, one call at a
   * time, with a clock that passes the deadline once `callsBefore` calls have been made: counted
   * by calls, not by the clock, so that a busy machine cannot hold a first call past it.
   */
  async function pastDeadline(callsBefore: number) {
    const failure = new Error('queue unreachable'); // injected: a real queue cannot fail on cue
    let calls = 0;
    const queue = {
      sendBatch: async (entries: readonly BatchEntry[]) => {
        calls++;
        if (entries.some((e) => e.message.plantId === '7')) throw failure;
        return [];
      },
    };
    const result = await fanOut(
      records(20),
      { subscribers, queue, failures: noFailures },
      { until: 1_000, inFlight: 1, now: () => (calls < callsBefore ? 0 : Infinity) },
    );
    return { result, calls, failure };
  }

  it('past its deadline, reports the first record whose deliveries are not all queued', async () => {
    // The six calls, then the two that failed sent again (and failing again) before the deadline.
    const { result, calls, failure } = await pastDeadline(8);
    expect(calls).toBe(8);
    // Plant 7's deliveries (18 to 20) share their calls (10-19, 20-29) with plants 4 to 10: the
    // first of those not wholly queued is plant 4 (its delivery 9 went in the first call).
    expect(result.failedAt).toEqual({ sequenceNumber: '4', error: failure });
    expect(result.queued).toBe(40);
  });

  it('starts no call past its deadline, even within a round of calls sent again', async () => {
    // The deadline passes after the first of the two calls sent again: the second never starts.
    const { result, calls, failure } = await pastDeadline(7);
    expect(calls).toBe(7);
    expect(result.failedAt).toEqual({ sequenceNumber: '4', error: failure });
    expect(result.queued).toBe(40);
  });

  it('sends a record that can never succeed, whole, to the failure queue and goes on', async () => {
    const poison = {
      eventID: 'e2',
      eventName: 'INSERT',
      dynamodb: { SequenceNumber: '2', NewImage: { id: { N: '1.5' }, name: { S: 'p' } } },
    } as DynamoDBRecord;
    const failed: unknown[] = [];
    const queue = recordingQueue();
    const result = await fanOut(
      [record('1'), poison, record('3')],
      { subscribers, queue, failures: { put: async (document) => void failed.push(document) } },
      soon(),
    );
    expect(queue.calls.flat().map((d) => d.plantId)).toEqual(['1', '1', '1', '3', '3', '3']);
    expect(failed).toEqual([
      { reason: expect.stringMatching(/not a stored plant/), record: poison },
    ]);
    expect(result.failedAt).toBeUndefined();
  });

  it('sets aside a record whose delivery the queue refuses as malformed, and goes on', async () => {
    const failed: { reason: string }[] = [];
    const queue = recordingQueue((id) =>
      id === '4' ? { id, senderFault: true, reason: 'InvalidMessageContents' } : undefined,
    );
    const result = await fanOut(
      records(3),
      { subscribers, queue, failures: { put: async (document) => void failed.push(document) } },
      soon(),
    );
    // Entry 4 is plant 2's to sub_b: plant 2 is set aside whole, never sent again.
    expect(queue.calls.length).toBe(1);
    expect(failed.map((f) => f.reason)).toEqual([
      'the queue refused a delivery to sub_b: InvalidMessageContents',
    ]);
    expect(result.queued).toBe(8);
    expect(result.failedAt).toBeUndefined();
  });

  it('retries a poison record when the failure queue is out of reach (nothing is dropped)', async () => {
    const poison = { ...record('2'), dynamodb: { SequenceNumber: '2', NewImage: {} } };
    const result = await fanOut(
      [record('1'), poison as DynamoDBRecord],
      {
        subscribers,
        queue: recordingQueue(),
        failures: {
          put: async () => {
            throw new Error('queue unreachable');
          },
        },
      },
      soon(),
    );
    expect(result.failedAt?.sequenceNumber).toBe('2');
  });

  it('sets no record aside past its deadline: the retry from that record will', async () => {
    const poison = { ...record('2'), dynamodb: { SequenceNumber: '2', NewImage: {} } };
    let puts = 0;
    let clock = 0;
    const queue = {
      // Each call takes the clock past the deadline.
      sendBatch: async () => {
        clock = 2_000;
        return [];
      },
    };
    const result = await fanOut(
      [record('1'), poison as DynamoDBRecord, record('3')],
      { subscribers, queue, failures: { put: async () => void puts++ } },
      { until: 1_000, now: () => clock },
    );
    expect(puts).toBe(0);
    expect(result.failedAt?.sequenceNumber).toBe('2');
    expect(result.queued).toBe(6);
  });
});

describe('SendMessageBatch calls (sqsBatches)', () => {
  const LIMIT = SQS_MESSAGE_LIMIT_BYTES;
  const all = (sizes: number[]) => sqsBatches(Object.keys(sizes).map(Number), sizes);

  it('cuts at ten entries or 256 KiB in all, in order, and never makes an empty call', () => {
    expect(all(Array(23).fill(1)).map((b) => b.length)).toEqual([10, 10, 3]);
    expect(all([LIMIT, 1, LIMIT - 1, 1])).toEqual([[0], [1, 2], [3]]);
    expect(all([])).toEqual([]);
  });

  it('refuses an entry larger than SQS takes, before any call', () => {
    expect(() => all([LIMIT + 1, 1])).toThrow(
      `a message of ${LIMIT + 1} bytes, over the ${LIMIT} SQS takes`,
    );
  });
});

describe("the fan-out's subscriber list", () => {
  const one = [{ subscriberId: 'sub_a', url: 'https://a.example/', name: 'a', createdAt: '' }];

  it('keeps it at most the default, which `webhook add --aws` waits out: a longer setting fails the start', () => {
    const of = (value: string | undefined) =>
      subscribersFreshSecondsOf({ [WEBHOOK_ENVIRONMENT.subscribersFreshSeconds]: value });
    expect([of(undefined), of(''), of('0'), of(String(SUBSCRIBERS_FRESH_SECONDS))]).toEqual([
      SUBSCRIBERS_FRESH_SECONDS,
      SUBSCRIBERS_FRESH_SECONDS,
      0,
      SUBSCRIBERS_FRESH_SECONDS,
    ]);
    for (const refused of [String(SUBSCRIBERS_FRESH_SECONDS + 1), '60', '-1', '2.5', 'ten']) {
      expect(() => of(refused)).toThrow(
        `WEBHOOK_SUBSCRIBERS_FRESH_SECONDS must be a whole number of seconds from 0 to ${SUBSCRIBERS_FRESH_SECONDS}, not ${refused}`,
      );
    }
  });

  it('is read once per freshMs, counted from when the read began, and shared while it runs', async () => {
    let clock = 0;
    let reads = 0;
    const list = freshSubscribers(
      async () => {
        reads++;
        clock += 300; // the read itself takes time: freshness counts from its start
        return one;
      },
      1_000,
      () => clock,
    );
    await Promise.all([list(), list()]);
    expect(reads).toBe(1);
    clock = 999;
    await list();
    expect(reads).toBe(1);
    clock = 1_000;
    await list();
    expect(reads).toBe(2);
  });

  it('reads on every batch at 0 s (npm start), and never keeps a failed read', async () => {
    let reads = 0;
    const every = freshSubscribers(
      async () => (reads++, one),
      0,
      () => 5,
    );
    await every();
    await every();
    expect(reads).toBe(2);
    let fail = true;
    const flaky = freshSubscribers(
      async () => {
        if (fail) throw new Error('table unreachable');
        return one;
      },
      60_000,
      () => 5,
    );
    await expect(flaky()).rejects.toThrow('table unreachable');
    fail = false;
    await expect(flaky()).resolves.toEqual(one);
  });
});

describe('OpenAPI', () => {
  it('describes webhooks.newPlant with the three signed headers, the optional attempt and the NewPlant body', () => {
    const newPlant = (buildDocument().webhooks as Record<string, { post: Record<string, unknown> }>)
      .newPlant!.post;
    expect(
      (newPlant.parameters as { name: string; in: string; required: boolean }[]).map((p) => [
        p.name,
        p.in,
        p.required,
      ]),
    ).toEqual([
      ['webhook-id', 'header', true],
      ['webhook-timestamp', 'header', true],
      ['webhook-signature', 'header', true],
      ['webhook-attempt', 'header', false],
    ]);
    expect(newPlant.requestBody).toMatchObject({
      content: { 'application/json': { schema: { $ref: '#/components/schemas/NewPlant' } } },
    });
  });
});
