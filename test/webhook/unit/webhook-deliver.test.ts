/**
 * The deliver handler's decisions, with the receiver's POST and the tables injected: whose a
 * failure is (ours spends no attempt, the receiver's queues the next attempt's copy or, after
 * the last, a dead letter), waiting on a copy's first receive, one lookup and one decrypt per
 * subscriber per batch and sandbox, and the signatures of a rotation (verified by the
 * `standardwebhooks` package with either secret).
 */
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { deliver } from '../../../lambda/deliver/deliver';
import { DNS_DEADLINE_SECONDS } from '../../../lambda/deliver/resolver';
import { SQS_CALL_MAX_MS } from '../../../lambda/webhook/delivery-queue';
import { Webhook } from 'standardwebhooks';
import { makeDeliverHandler, type DeliverHandlerDeps } from '../../../lambda/deliver/handler';
import { PUBLIC_ONLY } from '../../../lambda/webhook/address-policy';
import type { DeliveryMessage } from '../../../lambda/webhook/message';
import type { post } from '../../../lambda/deliver/post';
import {
  DELIVERY_TIMEOUT_SECONDS,
  HORIZON_SECONDS,
  MAX_ATTEMPTS,
  RETRY_DELAYS_SECONDS,
} from '../../../lambda/webhook/schedule';
import { OpenedSecrets, ROTATION_OVERLAP_SECONDS } from '../../../lambda/webhook/secrets';
import { TEST_SECRET_BOX } from '../../support/secret-box';
import { captureOutput } from '../../support/output';
import { generateSecret } from '../../../lambda/webhook/signature';
import type { SealedSubscriber } from '../../../lambda/webhook/subscriptions-table';

const NOW = Date.parse('2026-01-01T00:00:00.000Z');

/** A queue message for `subscriberId`, received `receiveCount` times. */
function record(message: Partial<DeliveryMessage> & { subscriberId: string }, receiveCount = 1) {
  const plantId = message.plantId ?? '1';
  return {
    messageId: `${message.subscriberId}-${plantId}-${message.attempt ?? 0}`,
    receiptHandle: `r-${message.subscriberId}-${plantId}`,
    body: JSON.stringify({
      webhookId: `msg_${message.subscriberId}${plantId}`,
      plantId,
      body: `{"id":${plantId},"name":"p"}`,
      ...message,
    }),
    attributes: { ApproximateReceiveCount: String(receiveCount) },
  };
}

/** A handler over injected parts, and what it did to the queues. */
async function harness(options: {
  subscriber?: (id: string) => Promise<SealedSubscriber | undefined>;
  answer?: Awaited<ReturnType<typeof post>>;
  open?: (sealed: string, subscriberId: string) => Promise<string>;
  /** What Lambda's context says is left of the invocation. @default - no context given */
  remainingMs?: number;
}) {
  const secret = generateSecret();
  const sealed = await TEST_SECRET_BOX.seal(secret, 'sub_a');
  const copies: DeliveryMessage[] = [];
  const deadLetters: DeliveryMessage[] = [];
  const visibility: [string, number][] = [];
  const posted: Record<string, string>[] = [];
  const deps: DeliverHandlerDeps = {
    subscriptions: {
      get:
        options.subscriber ??
        (async (subscriberId) => ({
          subscriberId,
          url: `https://${subscriberId}.example/`,
          name: '',
          createdAt: '',
          secret: sealed,
        })),
    },
    secrets: new OpenedSecrets({
      ...TEST_SECRET_BOX,
      open: options.open ?? TEST_SECRET_BOX.open,
    }),
    policy: PUBLIC_ONLY,
    post: async (_url, headers) => {
      posted.push(headers);
      return options.answer ?? { status: 204 };
    },
    now: () => NOW,
    queue: {
      send: async (messages) => void copies.push(...messages),
      retryAfter: async (handle, seconds) => void visibility.push([handle, seconds]),
    },
    deadLetters: { deadLetter: async (message) => void deadLetters.push(message) },
  };
  const handle = makeDeliverHandler(deps);
  const context = (
    options.remainingMs === undefined
      ? {}
      : { getRemainingTimeInMillis: () => options.remainingMs! }
  ) as Context;
  const run = (...records: ReturnType<typeof record>[]) =>
    handle({ Records: records } as unknown as SQSEvent, context);
  return { run, copies, deadLetters, visibility, posted, secret };
}

it('a receiver failure spends one attempt: the received message is done, a copy counting one more waits the next delay', async () => {
  const h = await harness({ answer: { status: 503 } });
  expect(await h.run(record({ subscriberId: 'sub_a' }))).toEqual({ batchItemFailures: [] });
  expect(h.copies).toEqual([
    expect.objectContaining({
      subscriberId: 'sub_a',
      webhookId: 'msg_sub_a1',
      attempt: 1,
      waitSeconds: expect.any(Number),
    }),
  ]);
  const wait = h.copies[0]!.waitSeconds!;
  expect(wait).toBeGreaterThanOrEqual(RETRY_DELAYS_SECONDS[0]! * 0.8);
  expect(wait).toBeLessThanOrEqual(RETRY_DELAYS_SECONDS[0]! * 1.2);
  expect(h.deadLetters).toEqual([]);
  expect(h.posted[0]!['webhook-attempt']).toBe('1');
});

it.each([199, 300, 307, 308])('a %d is no delivery: it spends the attempt', async (status) => {
  const h = await harness({ answer: { status } });
  expect(await h.run(record({ subscriberId: 'sub_a' }))).toEqual({ batchItemFailures: [] });
  expect(h.copies).toEqual([expect.objectContaining({ webhookId: 'msg_sub_a1', attempt: 1 })]);
});

it.each([200, 204, 299])('a %d delivers: no copy, nothing dead-lettered', async (status) => {
  const h = await harness({ answer: { status } });
  expect(await h.run(record({ subscriberId: 'sub_a' }))).toEqual({ batchItemFailures: [] });
  expect([h.copies, h.deadLetters, h.visibility]).toEqual([[], [], []]);
});

it('the copy waits on its first receive, then makes its attempt', async () => {
  const h = await harness({ answer: { status: 204 } });
  const copy = { subscriberId: 'sub_a', attempt: 2, waitSeconds: 120 };
  const first = await h.run(record(copy, 1));
  expect(first.batchItemFailures).toHaveLength(1);
  expect(h.visibility).toEqual([['r-sub_a-1', 120]]);
  expect(h.posted).toEqual([]);
  expect(await h.run(record(copy, 2))).toEqual({ batchItemFailures: [] });
  expect(h.posted.map((p) => p['webhook-attempt'])).toEqual(['3']);
});

it('after the last attempt, once past the horizon, the delivery is dead-lettered with a fresh count (a redrive gets the whole schedule)', async () => {
  const h = await harness({ answer: { failure: 'connect ECONNREFUSED' } });
  const last = {
    subscriberId: 'sub_a',
    attempt: MAX_ATTEMPTS - 1,
    firstAttemptAt: NOW - HORIZON_SECONDS * 1000,
  };
  expect(await h.run(record(last, 2))).toEqual({ batchItemFailures: [] });
  expect(h.copies).toEqual([]);
  expect(h.deadLetters).toEqual([
    {
      webhookId: 'msg_sub_a1',
      subscriberId: 'sub_a',
      plantId: '1',
      body: '{"id":1,"name":"p"}',
      // Where `enable` would replay from: the message's time, as it carries no createdAt.
      storedAt: new Date(NOW).toISOString(),
    },
  ]);
});

it('never dead-letters before the horizon: the last attempt, early (short Retry-Afters), earns another after what is left', async () => {
  const h = await harness({ answer: { failure: 'connect ECONNREFUSED' } });
  const left = 3_600;
  const early = {
    subscriberId: 'sub_a',
    attempt: MAX_ATTEMPTS - 1,
    firstAttemptAt: NOW - (HORIZON_SECONDS - left) * 1000,
  };
  expect(await h.run(record(early, 2))).toEqual({ batchItemFailures: [] });
  expect(h.deadLetters).toEqual([]);
  expect(h.copies).toEqual([
    expect.objectContaining({
      attempt: MAX_ATTEMPTS,
      waitSeconds: left,
      firstAttemptAt: early.firstAttemptAt,
    }),
  ]);
});

it.each([
  [
    'the subscriptions table',
    {
      subscriber: async () => {
        throw new Error('store unavailable'); // injected: the engine cannot fail on cue here
      },
    },
  ],
  [
    'the secrets key',
    {
      open: async () => {
        throw new Error('KMS throttled'); // injected
      },
    },
  ],
])('a failure of %s is ours: retried soon, no attempt spent, nothing posted', async (_, fault) => {
  const h = await harness(fault);
  const received = { subscriberId: 'sub_a', attempt: 3 };
  const answer = await h.run(record(received, 4));
  expect(answer.batchItemFailures).toEqual([{ itemIdentifier: 'sub_a-1-3' }]);
  expect(h.posted).toEqual([]);
  expect(h.copies).toEqual([]);
  expect(h.deadLetters).toEqual([]);
  // Soon (on our own clock, not the receiver's schedule), and the message keeps attempt 3.
  expect(h.visibility).toHaveLength(1);
  expect(h.visibility[0]![1]).toBeLessThanOrEqual(300);
});

it('at a scaled schedule, our own failure still pauses for real time: the queue scales the wait it is asked', async () => {
  const scale = 0.0001;
  const outcome = await deliver(record({ subscriberId: 'sub_a' }) as unknown as SQSRecord, {
    subscriptions: {
      get: async () => {
        throw new Error('store unavailable'); // injected
      },
    },
    secrets: new OpenedSecrets(TEST_SECRET_BOX),
    policy: PUBLIC_ONLY,
    now: () => NOW,
    scale,
  });
  expect(outcome.outcome).toBe('failed');
  // The first pause is 5 s ± its jitter, as the queue will count it once scaled.
  const next = outcome.next as { step: string; seconds: number };
  expect(next.step).toBe('again-in');
  expect(next.seconds * scale).toBeGreaterThanOrEqual(4);
  expect(next.seconds * scale).toBeLessThanOrEqual(6.1);
});

it('when the queue itself is out of reach the message comes back unchanged (its count is in the body)', async () => {
  const h = await harness({ answer: { status: 500 } });
  const failing = makeDeliverHandler({
    subscriptions: {
      get: async (subscriberId) => ({
        subscriberId,
        url: 'https://a.example/',
        name: '',
        createdAt: '',
        secret: await TEST_SECRET_BOX.seal(h.secret, subscriberId),
      }),
    },
    secrets: new OpenedSecrets(TEST_SECRET_BOX),
    policy: PUBLIC_ONLY,
    post: async () => ({ status: 500 }),
    queue: {
      send: async () => {
        throw new Error('queue unreachable'); // injected
      },
      retryAfter: async () => undefined,
    },
    deadLetters: { deadLetter: async () => undefined },
    queueRetryPausesMs: [1, 1],
  });
  const answer = await failing(
    { Records: [record({ subscriberId: 'sub_a', attempt: 1 })] } as unknown as SQSEvent,
    {} as Context,
  );
  expect(answer.batchItemFailures).toEqual([{ itemIdentifier: 'sub_a-1-1' }]);
});

it('starts no attempt that could not end, with its queue call, before the invocation does: ours, none spent', async () => {
  // After the reserve for the queue call, a millisecond less than a resolution and an answer take.
  const attemptMs = (DNS_DEADLINE_SECONDS + DELIVERY_TIMEOUT_SECONDS) * 1000;
  const remainingMs = SQS_CALL_MAX_MS + 1_000 + attemptMs - 1;
  const late = await harness({ answer: { status: 204 }, remainingMs });
  const answer = await late.run(record({ subscriberId: 'sub_a', attempt: 2 }));
  expect(answer.batchItemFailures).toEqual([{ itemIdentifier: 'sub_a-1-2' }]);
  expect(late.posted).toEqual([]);
  expect(late.visibility).toEqual([['r-sub_a-1', expect.any(Number)]]);
  expect(late.copies).toEqual([]);
  // With a second more, the attempt is made.
  const inTime = await harness({ answer: { status: 204 }, remainingMs: remainingMs + 1_000 });
  expect(await inTime.run(record({ subscriberId: 'sub_a', attempt: 2 }))).toEqual({
    batchItemFailures: [],
  });
  expect(inTime.posted.map((p) => p['webhook-attempt'])).toEqual(['3']);
});

it('answers by the end of its time, less a second, whatever still runs: what is not done comes back', async () => {
  const h = await harness({
    // The subscriber's read hangs for one of the two messages.
    subscriber: async (subscriberId) =>
      subscriberId === 'sub_hung'
        ? new Promise<never>(() => undefined)
        : {
            subscriberId,
            url: `https://${subscriberId}.example/`,
            name: '',
            createdAt: '',
            secret: await TEST_SECRET_BOX.seal(generateSecret(), subscriberId),
          },
    remainingMs: 1_500,
  });
  const started = performance.now();
  const answer = await h.run(
    record({ subscriberId: 'sub_hung' }),
    record({ subscriberId: 'sub_a' }),
  );
  // Before the invocation's end, and its timeout.
  expect(performance.now() - started).toBeLessThan(1_500);
  // The other one, without the time to start its attempt, comes back too: neither spent one.
  expect(answer.batchItemFailures).toEqual([
    { itemIdentifier: 'sub_hung-1-0' },
    { itemIdentifier: 'sub_a-1-0' },
  ]);
  expect(h.posted).toEqual([]);
  // Nor had it the time for its queue call.
  expect(h.visibility).toEqual([]);
});

it('a message still running when its batch was answered neither logs nor settles when it ends', async () => {
  let release: (subscriber: undefined) => void = () => undefined;
  const h = await harness({
    // Read after the answer: removed (a drop, which would log and be done with).
    subscriber: () => new Promise((resolve) => (release = resolve)),
    remainingMs: 1_100,
  });
  const answer = await h.run(record({ subscriberId: 'sub_late' }));
  expect(answer.batchItemFailures).toEqual([{ itemIdentifier: 'sub_late-1-0' }]);
  const output = captureOutput();
  try {
    release(undefined);
    await new Promise((resolve) => setTimeout(resolve, 50));
  } finally {
    output.restore();
  }
  expect(output.lines).toEqual([]);
  expect([h.copies, h.deadLetters, h.visibility]).toEqual([[], [], []]);
});

it('tries a queue call again only while the try would end before the invocation does', async () => {
  const calls = async (remainingMs: number) => {
    let tries = 0;
    const handle = makeDeliverHandler({
      subscriptions: { get: async () => undefined },
      secrets: new OpenedSecrets(TEST_SECRET_BOX),
      policy: PUBLIC_ONLY,
      queue: {
        send: async () => undefined,
        retryAfter: async () => {
          tries += 1;
          throw new Error('queue unreachable'); // injected
        },
      },
      deadLetters: { deadLetter: async () => undefined },
      queueRetryPausesMs: [600, 600],
    });
    // A copy's first receive waits: its next step is a visibility change.
    const waiting = record({ subscriberId: 'sub_a', attempt: 1, waitSeconds: 60 });
    const context = { getRemainingTimeInMillis: () => remainingMs } as Context;
    const answer = await handle({ Records: [waiting] } as unknown as SQSEvent, context);
    expect(answer.batchItemFailures).toEqual([{ itemIdentifier: 'sub_a-1-1' }]);
    return tries;
  };
  // One try, and two more after their pauses: each could take SQS_CALL_MAX_MS.
  expect(await calls(30_000)).toBe(3);
  // Room for one try (and its last second), with half a second to spare for a busy machine;
  // none for a second after its pause.
  expect(await calls(SQS_CALL_MAX_MS + 1_000 + 500)).toBe(1);
  // None at all.
  expect(await calls(SQS_CALL_MAX_MS + 1_000 - 1)).toBe(0);
});

it('opens each subscriber secret once per sandbox, keyed by subscriber and sealed value, sharing the promise', async () => {
  const opened: string[] = [];
  const secrets = new Map<string, string>();
  const h = await harness({
    subscriber: async (subscriberId) => {
      if (!secrets.has(subscriberId)) secrets.set(subscriberId, generateSecret());
      return {
        subscriberId,
        url: `https://${subscriberId}.example/`,
        name: '',
        createdAt: '',
        secret: await TEST_SECRET_BOX.seal(secrets.get(subscriberId)!, subscriberId),
      };
    },
    open: async (sealed, subscriberId) => {
      opened.push(subscriberId);
      await new Promise((resolve) => setTimeout(resolve, 5));
      return TEST_SECRET_BOX.open(sealed, subscriberId);
    },
  });
  const batch = Array.from({ length: 100 }, (_, n) =>
    record({ subscriberId: n % 2 ? 'sub_a' : 'sub_b', plantId: String(n) }),
  );
  expect(await h.run(...batch)).toEqual({ batchItemFailures: [] });
  expect(await h.run(...batch)).toEqual({ batchItemFailures: [] });
  expect(opened.sort()).toEqual(['sub_a', 'sub_b']);
});

it('a sealed secret copied to another subscriber does not sign for it', async () => {
  const sealedForA = await TEST_SECRET_BOX.seal(generateSecret(), 'sub_a');
  const h = await harness({
    subscriber: async (subscriberId) => ({
      subscriberId,
      url: `https://${subscriberId}.example/`,
      name: '',
      createdAt: '',
      secret: sealedForA,
    }),
    // As KMS does with the subscriber id as encryption context.
    open: async (sealed, subscriberId) => {
      if (sealed === sealedForA && subscriberId !== 'sub_a') throw new Error('InvalidCiphertext');
      return TEST_SECRET_BOX.open(sealed, subscriberId);
    },
  });
  const answer = await h.run(record({ subscriberId: 'sub_a' }), record({ subscriberId: 'sub_b' }));
  expect(answer.batchItemFailures).toEqual([{ itemIdentifier: 'sub_b-1-0' }]);
  expect(h.posted).toHaveLength(1);
});

it('signs with the new and the previous secret while a rotation overlaps, then with the new one only', async () => {
  const [oldSecret, newSecret] = [generateSecret(), generateSecret()];
  const rotated = async (rotationEndsAt: string) => ({
    subscriberId: 'sub_a',
    url: 'https://a.example/',
    name: '',
    createdAt: '',
    secret: await TEST_SECRET_BOX.seal(newSecret, 'sub_a'),
    previousSecret: await TEST_SECRET_BOX.seal(oldSecret, 'sub_a'),
    rotationEndsAt,
  });
  const ends = new Date(NOW + ROTATION_OVERLAP_SECONDS * 1000).toISOString();
  const during = await harness({ subscriber: () => rotated(ends) });
  await during.run(record({ subscriberId: 'sub_a' }));
  const headers = during.posted[0]!;
  expect(headers['webhook-signature']).toMatch(/^v1,\S+ v1,\S+$/);
  const body = '{"id":1,"name":"p"}';
  const verify = (secret: string, h: Record<string, string>) =>
    new Webhook(secret).verify(body, h, { jsonParse: false } as never);
  // standardwebhooks checks the timestamp against its clock: the attempt was signed at NOW.
  jest.useFakeTimers({ now: NOW, doNotFake: ['setTimeout', 'setImmediate', 'nextTick'] });
  try {
    expect(() => verify(newSecret, headers)).not.toThrow();
    expect(() => verify(oldSecret, headers)).not.toThrow();
    const after = await harness({ subscriber: () => rotated(new Date(NOW).toISOString()) });
    await after.run(record({ subscriberId: 'sub_a' }));
    const single = after.posted[0]!;
    expect(single['webhook-signature']).toMatch(/^v1,\S+$/);
    expect(() => verify(newSecret, single)).not.toThrow();
    expect(() => verify(oldSecret, single)).toThrow();
  } finally {
    jest.useRealTimers();
  }
});
