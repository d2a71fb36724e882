/**
 * The newPlant webhook end to end on the local runtime (`npm start` in-process): subscribers
 * added with `npm run webhook -- add`, plants created over HTTP with retries, conflicts and ids at
 * the int64 edges, every delivery verified with `standardwebhooks`; a receiver that fails then
 * recovers, one that hangs while another is served, dead letters listed and redriven by the CLI.
 * The retry schedule runs at 1/10,000 of its real length (PLANT_STORE_WEBHOOK_RETRY_SCALE).
 */
import { runCommand } from '../../support/run-cli';
import { cliEnvironment, useLocalService } from '../../support/local-service';
import { startReceiver, until, type Receiver } from '../../support/webhook-receiver';
import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { Webhook } from 'standardwebhooks';
import { HORIZON_SECONDS, MAX_ATTEMPTS } from '../../../lambda/webhook/schedule';
import {
  LOCAL_QUEUE_NAMES,
  localCliClientConfig,
  localEngineTarget,
  localQueueUrl,
} from '../../../lib/npm-start/find';

jest.setTimeout(600_000);

const SCALE = 0.0001;
const service = useLocalService('webhooks', { webhookRetryScale: SCALE });
const cli = (...args: string[]) => runCommand('webhook', args, cliEnvironment(service));

/**
 * Resolves once the delivery queue has held no message (none waiting, in flight or delayed) and
 * no function has started or ended for `quietMs`: every delivery queued so far, copies included,
 * has had its last arrival (short of a failed stream batch retried later than `quietMs`; the
 * stream waits 20 ms here).
 */
async function deliveriesDrained(quietMs = 2_000): Promise<void> {
  const target = localEngineTarget(cliEnvironment(service));
  const sqs = new SQSClient(localCliClientConfig(target.endpoint, target.credentials));
  const queueUrl = localQueueUrl(target.endpoint, LOCAL_QUEUE_NAMES.deliveries);
  const idle = async () => {
    const { Attributes = {} } = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['All'] }),
    );
    const messages =
      Number(Attributes.ApproximateNumberOfMessages) +
      Number(Attributes.ApproximateNumberOfMessagesNotVisible);
    const running = service.invocations.list().some((e) => e.kind === 'invocation' && !e.ended);
    return messages === 0 && !running;
  };
  try {
    let version = service.invocations.version;
    let quietSince = Date.now();
    for (let tries = 0; tries < 300; tries++) {
      const now = service.invocations.version;
      if (!(await idle()) || now !== version) {
        version = now;
        quietSince = Date.now();
      } else if (Date.now() - quietSince >= quietMs) return;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    throw new Error('the delivery queue did not drain');
  } finally {
    sqs.destroy();
  }
}

/** Adds `receiver` as a subscriber through the CLI; its secret is what `add` printed. */
async function subscribe(receiver: Receiver, name: string): Promise<string> {
  const added = await cli('add', '--url', receiver.url, '--name', name);
  expect(added.code).toBe(0);
  expect(added.stdout).toMatch(/^whsec_[A-Za-z0-9+/]{43}=\n$/);
  receiver.secret = added.stdout.trim();
  const id = /subscriberId (sub_\S+)/.exec(added.stderr)?.[1];
  expect(id).toBeDefined();
  return id!;
}

const post = (body: string) =>
  fetch(`${service.url}/plants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${service.devToken}`, 'content-type': 'application/json' },
    body,
  });

const receivers: Receiver[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
});

/** The plants created, each exactly the body its deliveries must carry. */
const PLANTS = [
  '{"id":9223372036854775807,"name":"max"}',
  '{"id":-9223372036854775808,"name":"min","tag":"edge"}',
  '{"id":9007199254740993,"name":"2^53+1"}',
  '{"id":9007199254740992,"name":"2^53"}',
  '{"id":0,"name":"zero é 🌱"}',
];

it('delivers each stored plant once per subscriber (after dedup), signed, retried, isolated, dead-lettered and redriven', async () => {
  const steady = await startReceiver();
  // Fails the first two attempts of each delivery, then accepts.
  const flaky = await startReceiver((nth) => (nth <= 2 ? 500 : 204));
  // Hangs on its first delivery (the deliverer gives up after 10 s), accepts the rest.
  const hanging = await startReceiver((nth) => (nth === 1 ? 'hang' : 204));
  // Fails everything until told otherwise.
  let dead = true;
  const down = await startReceiver(() => (dead ? 503 : 204));
  receivers.push(steady, flaky, hanging, down);
  for (const [receiver, name] of [
    [steady, 'steady'],
    [flaky, 'flaky'],
    [hanging, 'hanging'],
    [down, 'down'],
  ] as const) {
    await subscribe(receiver, name);
  }
  const listed = await cli('list');
  expect(listed.code).toBe(0);
  expect(listed.stdout).not.toMatch(/whsec_|local:/);
  expect(listed.stdout.split('\n').filter(Boolean)).toHaveLength(5);

  // Each plant created, retried (200, nothing written) and conflicted (409): one stored plant each.
  for (const body of PLANTS) {
    expect((await post(body)).status).toBe(200);
    expect((await post(body)).status).toBe(200);
    const conflict = body.replace(/"name":"[^"]*"/, '"name":"another"');
    expect((await post(conflict)).status).toBe(409);
  }

  const want = new Set(PLANTS);
  const bodies = (r: Receiver) => new Set([...r.delivered().values()].map((d) => d.body));

  // The steady receiver is served while the hanging one holds its first request open: the
  // plant that request carries reached the steady receiver before the request ended. Ordered
  // by events, not by a budget: beside CPU burners the steady receiver's later plants came
  // after the deliverer had given the hanging request up.
  await until(
    () => steady.delivered().size === PLANTS.length,
    'the steady receiver has every plant',
  );
  const hung = hanging.received.find((r) => r.answered === 'hang')!;
  const sameBody = steady.received.filter((r) => r.body === hung.body);
  expect(Math.min(...sameBody.map((r) => r.at))).toBeLessThan(hung.endedAt ?? Infinity);

  await until(() => flaky.delivered().size === PLANTS.length, 'the flaky receiver recovers');
  await until(() => hanging.delivered().size === PLANTS.length, 'the hanging receiver is retried');
  for (const receiver of [steady, flaky, hanging]) {
    // Exact text: every digit of the int64 ids, nothing but id, name and tag.
    expect(bodies(receiver)).toEqual(want);
    expect(receiver.received.every((r) => r.verified)).toBe(true);
  }
  // Retries carry the same webhook-id: three attempts each (500, 500, 204) for the flaky one.
  // Delivery is at least once: a second copy of a delivery (a queue send whose answer came too
  // late for the client) carries the same id, and the receiver counts it with the first; a copy
  // goes on from the attempt it was sent as (a copy of attempt 2 arrives as 2), so one id's
  // arrivals are its first two answered 500 and the rest 204, attempts 1 and 2 among them and
  // none past 3 (a third 500 would have been needed for a fourth).
  for (const id of flaky.delivered().keys()) {
    const arrivals = flaky.received.filter((r) => r.id === id);
    expect(arrivals.length).toBeGreaterThanOrEqual(3);
    expect(arrivals.map((r) => r.answered)).toEqual([
      500,
      500,
      ...Array(arrivals.length - 2).fill(204),
    ]);
    expect(arrivals[0]!.attempt).toBe('1');
    const attempts = new Set(arrivals.map((r) => r.attempt));
    expect([...attempts].filter((a) => !['1', '2', '3'].includes(a))).toEqual([]);
    expect(attempts.has('1') && attempts.has('2')).toBe(true);
  }
  // A webhook-id is one plant to one subscriber: no two receivers or plants share one.
  const ids = [steady, flaky, hanging].flatMap((r) => [...r.delivered().keys()]);
  expect(new Set(ids).size).toBe(ids.length);

  // The down receiver: every attempt of the schedule fails, then each delivery is a dead letter.
  // 13 attempts over the 77 h horizon, scaled; each also waits the local queue's batching window.
  // At least once: a second copy of a delivery counts its own attempts under the same id, so
  // the wait is for every delivery's last attempt, not for a number of arrivals.
  const attemptsOf = (id: string) =>
    new Set(down.received.filter((r) => r.id === id).map((r) => r.attempt));
  const downIds = () => new Set(down.received.map((r) => r.id));
  await until(
    () =>
      downIds().size >= PLANTS.length &&
      [...downIds()].every((id) => attemptsOf(id).has(String(MAX_ATTEMPTS))),
    'every attempt reaches the down receiver',
    300_000,
  );
  const wholeSchedule = () => {
    expect(downIds().size).toBe(PLANTS.length);
    for (const id of downIds()) {
      expect(attemptsOf(id)).toEqual(
        new Set(Array.from({ length: MAX_ATTEMPTS }, (_, n) => String(n + 1))),
      );
    }
  };
  wholeSchedule();
  // The last failure moves to the dead-letter queue at the queue's next receive: list until then.
  // Rows: webhookId, subscriberId, plantId, deadSince.
  const listLetters = async () =>
    (await cli('dead-letters')).stdout
      .split('\n')
      .slice(1) // the header row
      .filter(Boolean)
      .map((line) => line.split('\t'));
  let letters = await listLetters();
  for (
    let tries = 0;
    tries < 20 && new Set(letters.map((l) => l[0])).size < PLANTS.length;
    tries++
  ) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    letters = await listLetters();
  }
  const lettered = letters.map((l) => l[0]!);
  expect(new Set(lettered)).toEqual(downIds());
  // Given up after the 13th attempt, not before and not after a 14th: an arrival of a later
  // attempt would have come before its dead letter was sent.
  wholeSchedule();
  // No letter, a second copy's included, sooner than the horizon after its first attempt (one
  // clock: the runtime and the receiver share this process).
  const firstAttempt = (id: string) =>
    Math.min(...down.received.filter((r) => r.id === id && r.attempt === '1').map((r) => r.at));
  for (const [id, , , deadSince] of letters) {
    expect(Date.parse(deadSince!) - firstAttempt(id!)).toBeGreaterThanOrEqual(
      HORIZON_SECONDS * 1000 * SCALE,
    );
  }

  // Redriven once the receiver is back: each delivery arrives, with its webhook-id unchanged.
  dead = false;
  const redriven = await cli('dead-letters', '--redrive');
  expect(redriven.code).toBe(0);
  await until(() => down.delivered().size === PLANTS.length, 'the redriven deliveries arrive');
  expect(new Set(down.delivered().keys())).toEqual(new Set(lettered));
  expect(bodies(down)).toEqual(want);
  expect((await cli('dead-letters')).stdout).toBe('');
});

it('delivers nothing for a delete, and nothing to a removed subscriber', async () => {
  const late = await startReceiver();
  receivers.push(late);
  const id = await subscribe(late, 'late');
  expect((await cli('remove', id)).code).toBe(0);
  expect((await cli('remove', id)).code).toBe(1);
  const response = await fetch(`${service.url}/plants/9223372036854775807`, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${service.devToken}` },
  });
  expect(response.status).toBe(204);
  // A marker plant for a subscriber that stays: once it arrives, anything before it has too.
  const marker = await startReceiver();
  receivers.push(marker);
  await subscribe(marker, 'marker');
  expect((await post('{"id":424242,"name":"marker"}')).status).toBe(200);
  await until(() => marker.delivered().size === 1, 'the marker plant arrives');
  expect(late.received).toEqual([]);
  expect([...marker.delivered().values()].map((d) => d.body)).toEqual([
    '{"id":424242,"name":"marker"}',
  ]);
});

it('replays the plants stored since a time with their first webhook-ids; rotates a secret, signing with both for a while', async () => {
  const since = new Date();
  // Stored before the subscriber was added: the replay owes it nothing, and counts it apart.
  expect((await post('{"id":505050,"name":"earlier"}')).status).toBe(200);
  const receiver = await startReceiver();
  receivers.push(receiver);
  const id = await subscribe(receiver, 'replayed');
  const bodies = ['{"id":515151,"name":"one"}', '{"id":525252,"name":"two","tag":"t"}'];
  for (const body of bodies) expect((await post(body)).status).toBe(200);
  // The plant stored just before the subscriber was added reaches it too when the fan-out reads
  // the subscribers after the add (a cold fan-out, a busy machine): only these two are counted.
  const firstOf = () =>
    new Map(
      [...receiver.delivered().values()]
        .filter((r) => bodies.includes(r.body))
        .map((r) => [r.body, r.id]),
    );
  await until(() => firstOf().size === bodies.length, 'the first deliveries arrive');
  const first = firstOf();

  // As after a receiver's data loss: the same plants, the same webhook-ids. Each plant's
  // arrivals are counted once the first round has drained (a second copy of a first delivery,
  // at least once, arrives before that), so an arrival after the count is the replay's.
  await deliveriesDrained();
  const arrivals = (body: string) => receiver.received.filter((r) => r.body === body);
  const before = new Map(bodies.map((body) => [body, arrivals(body).length]));
  const replayed = await cli('replay', '--since', since.toISOString(), '--subscriber', id);
  expect(replayed).toMatchObject({ code: 0, stdout: '' });
  expect(replayed.stderr).toBe(
    `queued 2 deliveries of 2 plants stored since ${since.toISOString()} (with their first webhook-ids); 1 plant stored before ${id} was added, not queued\n`,
  );
  await until(
    () => bodies.every((body) => arrivals(body).length > before.get(body)!),
    'the replayed deliveries',
  );
  const again = bodies.flatMap((body) => arrivals(body).slice(before.get(body)!));
  expect(again.every((r) => r.verified && first.get(r.body) === r.id)).toBe(true);
  expect(new Set(again.map((r) => r.body))).toEqual(new Set(bodies));
  // Plants stored before `since` are not replayed; a later `since` replays nothing.
  const none = await cli('replay', '--since', new Date().toISOString(), '--subscriber', id);
  expect(none.stderr).toMatch(/^queued 0 deliveries of 0 plants/);
  expect(await cli('replay', '--since', 'yesterday')).toMatchObject({ code: 2 });
  expect(
    await cli('replay', '--since', since.toISOString(), '--subscriber', 'sub_nobody'),
  ).toMatchObject({ code: 1 });

  // Rotation: a new secret, and for 24 h both sign every attempt.
  const oldSecret = receiver.secret!;
  const rotated = await cli('rotate', id);
  expect(rotated.code).toBe(0);
  expect(rotated.stdout).toMatch(/^whsec_[A-Za-z0-9+/]{43}=\n$/);
  const newSecret = rotated.stdout.trim();
  receiver.secret = newSecret;
  const listed = (await cli('list')).stdout.split('\n').find((line) => line.startsWith(id));
  const ends = Date.parse(listed!.split('\t')[4]!);
  expect(ends - Date.now()).toBeGreaterThan(23 * 3_600_000);
  const three = '{"id":535353,"name":"three"}';
  expect((await post(three)).status).toBe(200);
  const delivery = () => [...receiver.delivered().values()].find((r) => r.body === three);
  await until(() => delivery() !== undefined, 'the delivery after the rotation');
  const after = delivery()!;
  expect(after.headers['webhook-signature']).toMatch(/^v1,\S+ v1,\S+$/);
  for (const secret of [newSecret, oldSecret]) {
    expect(() => new Webhook(secret).verify(after.body, after.headers)).not.toThrow();
  }
  expect(await cli('rotate', 'sub_nobody')).toMatchObject({ code: 1, stdout: '' });
});

it('webhook attempts shows a lone success as soon as it is delivered, with no delivery after it', async () => {
  const receiver = await startReceiver();
  receivers.push(receiver);
  const id = await subscribe(receiver, 'lone');
  expect((await cli('test', id)).code).toBe(0);
  await until(() => receiver.delivered().size === 1, 'the test delivery');
  // Nothing else is sent to it: the attempt must show on its own (asked until it does).
  let shown = '';
  for (let asked = 0; asked < 30 && !/\t204\b/.test(shown); asked++) {
    const attempts = await cli('attempts', id);
    expect(attempts.code).toBe(0);
    shown = attempts.stdout;
  }
  const [webhookId] = [...receiver.delivered().keys()];
  expect(shown.split('\n').filter((line) => line.includes(webhookId!))).toEqual([
    expect.stringMatching(/\t1\t\d+\t204$/),
  ]);
});
