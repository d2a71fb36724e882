/**
 * A subscriber's receiver state on a real engine: reservations made by several deliver
 * invocations at once never start two requests closer than the pace allows, a `Retry-After`
 * hold only moves forward, a batch's outcomes keep the run of failures and a bounded list of
 * attempts, a disable is reported once, a dropped delivery is kept for replay (or sent back to
 * be delivered when `enable` came first), and `enable` keeps where to replay from until the
 * replay is done.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { makeDocumentClient } from '../../../lambda/aws/dynamodb';
import { SUBSCRIPTIONS_TABLE } from '../../../lambda/aws/tables';
import { RECENT_ATTEMPTS_KEPT } from '../../../lambda/webhook/health';
import { spacingMs } from '../../../lambda/webhook/rate-limit';
import { ReceiverGate, type Admission } from '../../../lambda/deliver/receiver-gate';
import { ReceiverStates } from '../../../lambda/webhook/receiver-state';
import { SubscriptionsTable } from '../../../lambda/webhook/subscriptions-table';
import { startEngine, type Engine } from '../../../lib/local/dynamodb/engine';

let engine: Engine;
let states: ReceiverStates;
let subscriptions: SubscriptionsTable;
beforeAll(async () => {
  engine = await startEngine();
  const client = makeDocumentClient(engine.clientConfig);
  states = new ReceiverStates(client, SUBSCRIPTIONS_TABLE.localName);
  subscriptions = new SubscriptionsTable(client, SUBSCRIPTIONS_TABLE.localName);
});
afterAll(() => engine.close());

let n = 0;
async function subscriber(rate?: number): Promise<string> {
  const subscriberId = `sub_test${++n}`;
  await subscriptions.add({
    subscriberId,
    url: 'http://127.0.0.1:9/hook',
    name: subscriberId,
    createdAt: new Date().toISOString(),
    secret: 'sealed',
  });
  if (rate !== undefined) expect(await states.setRate(subscriberId, rate)).toBe(true);
  return subscriberId;
}

const quiet = { disabled: () => undefined, failing: () => undefined };

it('spaces the starts of concurrent invocations by the pace, and sends the rest to wait', async () => {
  const id = await subscriber(20);
  // Four invocations at once, each with 25 deliveries for the subscriber.
  const admissions = (
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        const gate = new ReceiverGate({ states, events: quiet });
        const answers = await Promise.all(Array.from({ length: 25 }, () => gate.admit(id)));
        await gate.close();
        return answers;
      }),
    )
  ).flat();
  const starts = admissions
    .filter((a): a is Extract<Admission, { verdict: 'go' }> => a.verdict === 'go')
    .map((a) => a.startAt)
    .sort((a, b) => a - b);
  expect(starts.length).toBeGreaterThan(0);
  for (let i = 1; i < starts.length; i++) {
    expect(starts[i]! - starts[i - 1]!).toBeGreaterThanOrEqual(spacingMs(20) - 1);
  }
  const waits = admissions.filter((a) => a.verdict === 'wait');
  expect(waits.length + starts.length).toBe(100);
  for (const wait of waits)
    expect(wait.verdict === 'wait' && wait.seconds).toBeGreaterThanOrEqual(1);
});

it('holds a subscriber until its Retry-After, never earlier', async () => {
  const id = await subscriber();
  const later = Date.now() + 60_000;
  await states.holdUntil(id, later);
  await states.holdUntil(id, later - 30_000);
  expect((await states.read(id))!.nextSendAt).toBe(later);
  const gate = new ReceiverGate({ states, events: quiet });
  const admission = await gate.admit(id);
  expect(admission.verdict).toBe('wait');
  expect(admission.verdict === 'wait' && admission.seconds).toBeGreaterThanOrEqual(59);
});

it('keeps the run of failures, ends it with a success, and keeps only the latest attempts', async () => {
  const id = await subscriber();
  const attempt = (i: number, ok: boolean) => ({
    at: new Date(Date.UTC(2026, 10, 25, 8, 0, i)).toISOString(),
    webhookId: `msg_${i}`,
    attempt: 1,
    ms: 12,
    ...(ok ? { status: 204 } : { status: 500 }),
    ok,
  });
  let state = (await states.read(id))!;
  state = (await states.record(id, state, {
    attempts: Array.from({ length: 18 }, (_, i) => attempt(i, false)),
    slowdown: 0,
  }))!;
  expect(state.consecutiveFailures).toBe(18);
  expect(state.failingSince).toBe(Date.UTC(2026, 10, 25, 8, 0, 0));
  state = (await states.read(id))!;
  state = (await states.record(id, state, {
    attempts: [attempt(20, false), attempt(21, true), attempt(22, false), attempt(23, false)],
    slowdown: 1,
  }))!;
  // The success ended the run; the two failures after it start a new one.
  expect(state.consecutiveFailures).toBe(2);
  expect(state.failingSince).toBe(Date.UTC(2026, 10, 25, 8, 0, 22));
  expect(state.slowdown).toBe(1);
  const recent = (await states.recentAttempts(id))!;
  expect(recent).toHaveLength(RECENT_ATTEMPTS_KEPT);
  expect(recent[0]).toEqual({
    at: attempt(23, false).at,
    webhookId: 'msg_23',
    attempt: 1,
    ms: 12,
    status: 500,
  });
  expect(recent.map((a) => a.webhookId).slice(0, 5)).toEqual([
    'msg_23',
    'msg_22',
    'msg_21',
    'msg_20',
    'msg_17',
  ]);
  expect(await states.recentAttempts('sub_nobody')).toBeUndefined();
});

it('disables once, keeps the earliest plant for replay, and enable keeps it until the replay is done', async () => {
  const id = await subscriber();
  expect(
    await states.disable(id, '2026-11-25T08:00:00.000Z', '410 Gone', '2026-11-25T07:59:00.000Z'),
  ).toBe(true);
  expect(
    await states.disable(id, '2026-11-25T08:01:00.000Z', 'again', '2026-11-25T07:58:00.000Z'),
  ).toBe(false);
  expect(await states.keepForReplay(id, '2026-11-25T07:50:00.000Z')).toBe(true);
  expect(await states.keepForReplay(id, '2026-11-25T07:55:00.000Z')).toBe(false);
  const disabled = (await states.read(id))!;
  expect(disabled).toMatchObject({
    disabledAt: '2026-11-25T08:00:00.000Z',
    disabledReason: '410 Gone',
    replayFrom: '2026-11-25T07:50:00.000Z',
  });
  const gate = new ReceiverGate({ states, events: quiet });
  expect(await gate.admit(id)).toEqual({ verdict: 'disabled' });
  const before = (await states.enable(id))!;
  expect(before).toMatchObject({
    disabledAt: '2026-11-25T08:00:00.000Z',
    replayFrom: '2026-11-25T07:50:00.000Z',
  });
  // On again, the replay point kept until the replay has queued everything.
  const pending = (await states.read(id))!;
  expect(pending.disabledAt).toBeUndefined();
  expect(pending.replayFrom).toBe('2026-11-25T07:50:00.000Z');
  // Enabled again before that (an interrupted replay): answered as it is, to be resumed.
  expect(await states.enable(id)).toMatchObject({ replayFrom: '2026-11-25T07:50:00.000Z' });
  expect((await states.enable(id))!.disabledAt).toBeUndefined();
  // Not disabled: a drop keeps nothing (and says so).
  expect(await states.keepForReplay(id, '2026-11-25T07:00:00.000Z')).toBe(false);
  await states.replayed(id, '2026-11-25T07:50:00.000Z');
  expect((await states.read(id))!.replayFrom).toBeUndefined();
  expect(await states.enable('sub_nobody')).toBeUndefined();
});

it('a disable while a replay is pending keeps the older point; replayed leaves a disabled one alone', async () => {
  const id = await subscriber();
  await states.disable(id, '2026-11-25T08:00:00.000Z', '410 Gone', '2026-11-25T07:00:00.000Z');
  await states.enable(id);
  // Disabled again before the replay from 07:00 has finished: a later plant does not move it.
  expect(
    await states.disable(id, '2026-11-25T09:00:00.000Z', '410 Gone', '2026-11-25T08:30:00.000Z'),
  ).toBe(true);
  expect((await states.read(id))!.replayFrom).toBe('2026-11-25T07:00:00.000Z');
  // The replay that started before ends: the point stays for the next enable.
  await states.replayed(id, '2026-11-25T07:00:00.000Z');
  expect((await states.read(id))!.replayFrom).toBe('2026-11-25T07:00:00.000Z');
  // A subscriber disabled before replay points existed: enable replays from when it stopped.
  const old = await subscriber();
  await states.disable(old, '2026-11-25T10:00:00.000Z', 'old', '2026-11-25T10:00:00.000Z');
  await makeDocumentClient(engine.clientConfig).send(
    new UpdateCommand({
      TableName: SUBSCRIPTIONS_TABLE.localName,
      Key: { subscriberId: old },
      UpdateExpression: 'REMOVE replayFrom',
    }),
  );
  expect((await states.enable(old))!.replayFrom).toBeUndefined();
  expect((await states.read(old))!.replayFrom).toBe('2026-11-25T10:00:00.000Z');
});

it('a drop covered by the replay point read is kept without a write; one older than it lowers it', async () => {
  const id = await subscriber();
  await states.disable(id, '2026-11-25T08:00:00.000Z', '410 Gone', '2026-11-25T07:00:00.000Z');
  const gate = new ReceiverGate({ states, events: quiet });
  expect(await gate.admit(id)).toEqual({ verdict: 'disabled' });
  const drops = await Promise.all([
    gate.dropped(id, '2026-11-25T07:30:00.000Z'),
    gate.dropped(id, '2026-11-25T06:00:00.000Z'),
    gate.dropped(id, '2026-11-25T06:30:00.000Z'),
  ]);
  expect(drops).toEqual([{ kept: true }, { kept: true }, { kept: true }]);
  expect((await states.read(id))!.replayFrom).toBe('2026-11-25T06:00:00.000Z');
  // Enabled between the batch's read and the drop: the pending replay covers a later plant...
  const racing = new ReceiverGate({ states, events: quiet });
  expect(await racing.admit(id)).toEqual({ verdict: 'disabled' });
  await states.enable(id);
  expect(await racing.dropped(id, '2026-11-25T07:45:00.000Z')).toEqual({ kept: true });
  // ...but not an older one: that one goes back to be delivered.
  expect(await racing.dropped(id, '2026-11-25T05:00:00.000Z')).toMatchObject({ kept: false });
});

it('warns at the 4th failure in a row and disables once the run has lasted the 5-day window', async () => {
  const id = await subscriber();
  const events: string[] = [];
  const told = {
    disabled: (_: string, reason: string) => events.push(`disabled: ${reason}`),
    failing: (_: string, n: number) => events.push(`failing: ${n}`),
  };
  const now = Date.now();
  const failAt = async (at: number, count: number) => {
    const gate = new ReceiverGate({ states, events: told, now: () => at });
    for (let i = 0; i < count; i++) {
      await gate.report(id, {
        webhookId: `msg_w${i}`,
        attempt: 1,
        storedAt: new Date(at).toISOString(),
        startedAt: at,
        result: { status: 500 },
      });
    }
    await gate.close();
  };
  await failAt(now - 6 * 86_400_000, 3);
  expect(events).toEqual([]);
  // The run began 6 days ago: the next failures warn (the 4th) and disable.
  await failAt(now, 2);
  expect(events).toEqual([
    'failing: 5',
    expect.stringMatching(
      /^disabled: every attempt failed since \S+ \(5, the last: 500 Internal Server Error\)$/,
    ),
  ]);
  expect((await states.read(id))!.disabledAt).toBeDefined();
});
