/**
 * A subscriber's receiver state on a real engine: grants made to several sandboxes at once never
 * start two requests closer than the pace allows, a busy sandbox makes one grant a second and
 * no read, a `Retry-After` hold only moves forward, attempts are written when they change
 * something (and otherwise every 10 s) and keep the run of failures and a bounded list of
 * attempts on their own item, a disable is reported once, a dropped delivery is kept for replay
 * (or sent back to be delivered when `enable` came first), and `enable` keeps where to replay
 * from until the replay is done.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { makeDocumentClient } from '../../../lambda/aws/dynamodb';
import { SUBSCRIPTIONS_TABLE } from '../../../lambda/aws/tables';
import { RECENT_ATTEMPTS_KEPT } from '../../../lambda/webhook/health';
import { epochSlots, PACE_EPOCH_MS, spacingMs } from '../../../lambda/webhook/rate-limit';
import {
  ReceiverGate,
  RECORD_EVERY_MS,
  type Admission,
} from '../../../lambda/deliver/receiver-gate';
import { SandboxReceivers } from '../../../lambda/deliver/sandbox-receivers';
import { ReceiverStates } from '../../../lambda/webhook/receiver-state';
import { SubscriptionsTable } from '../../../lambda/webhook/subscriptions-table';
import { startEngine, type Engine } from '../../../lib/local/dynamodb/engine';

let engine: Engine;
let states: ReceiverStates;
let subscriptions: SubscriptionsTable;
/** The commands the receiver states sent, by name. */
const calls: string[] = [];
beforeAll(async () => {
  engine = await startEngine();
  const client = makeDocumentClient(engine.clientConfig);
  const send = client.send.bind(client) as (command: object) => Promise<unknown>;
  client.send = ((command: object) => {
    calls.push(command.constructor.name);
    return send(command);
  }) as typeof client.send;
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

it('spaces the starts of sandboxes asking at once by the pace, and sends the rest to wait', async () => {
  const id = await subscriber(20);
  // Four sandboxes at once, each with a batch of 25 deliveries for the subscriber.
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

it("queues a sandbox's waiting deliveries behind those of its earlier batches, a slot apart", async () => {
  const id = await subscriber(1);
  const sandbox = new SandboxReceivers(states);
  const at = Math.ceil(Date.now() / 1000) * 1000 + 2000;
  const waits = async () => {
    const gate = new ReceiverGate({ states, sandbox, events: quiet, now: () => at });
    const answers = await Promise.all(Array.from({ length: 10 }, () => gate.admit(id)));
    return answers.flatMap((a) => (a.verdict === 'wait' ? [a.seconds] : []));
  };
  // Two batches at once, each sending most of its ten back to wait: the second's aim after the
  // first's (one slot, 1.25 s, apart), not at the same seconds.
  const first = await waits();
  const second = await waits();
  expect(first.length).toBeGreaterThan(5);
  expect(second).toHaveLength(10);
  expect(Math.min(...second)).toBeGreaterThanOrEqual(Math.max(...first));
  expect(Math.max(...second)).toBeGreaterThanOrEqual(1.25 * (first.length + 9));
});

it("serves a busy sandbox's batches with one grant a second and no read", async () => {
  const id = await subscriber(1000);
  const sandbox = new SandboxReceivers(states);
  // Ten batches a second of ten deliveries each, for three seconds (the clock is the test's).
  const second = Math.ceil(Date.now() / 1000) * 1000 + 3000;
  const granted: number[] = [];
  const perSecond: string[][] = [];
  for (let s = 0; s < 3; s++) {
    const before = calls.length;
    for (let b = 0; b < 10; b++) {
      const at = second + s * 1000 + b * 100;
      const gate = new ReceiverGate({ states, sandbox, events: quiet, now: () => at });
      const answers = await Promise.all(Array.from({ length: 10 }, () => gate.admit(id)));
      for (const answer of answers) {
        expect(answer.verdict).toBe('go');
        if (answer.verdict === 'go') {
          expect(answer.subscriber.url).toBe('http://127.0.0.1:9/hook');
          granted.push(answer.startAt);
        }
      }
      await gate.close();
    }
    perSecond.push(calls.slice(before));
  }
  // The first second reads the subscriber and grants batch by batch; then one grant a second.
  expect(perSecond[0]!.filter((c) => c === 'GetCommand')).toHaveLength(1);
  expect(perSecond[1]).toEqual(['UpdateCommand']);
  expect(perSecond[2]).toEqual(['UpdateCommand']);
  expect(new Set(granted).size).toBe(300);
  const sorted = granted.sort((a, b) => a - b);
  for (let i = 1; i < sorted.length; i++) {
    expect(sorted[i]! - sorted[i - 1]!).toBeGreaterThanOrEqual(spacingMs(1000) - 0.001);
  }
});

it('never counts an epoch that left the item again: a late grant for it is refused', async () => {
  const id = await subscriber();
  const epoch = Math.floor(Date.now() / PACE_EPOCH_MS) + 4;
  const ask = (e: number) => ({
    epochs: [{ slots: epochSlots(e, spacingMs(100)), n: 1 }],
    seen: {},
  });
  expect(await states.grant(id, ask(epoch))).toMatchObject({ granted: true, from: [0] });
  // A sandbox further on drops that epoch; one whose grant for it arrives after is refused,
  // where a count made again from zero would hand out the same slot twice.
  expect(await states.grant(id, ask(epoch + 8), [epoch])).toMatchObject({ granted: true });
  expect((await states.read(id))!.granted.has(epoch)).toBe(false);
  expect(await states.grant(id, ask(epoch))).toMatchObject({ granted: false });
  expect(await states.grant(id, ask(epoch + 1))).toMatchObject({ granted: true, from: [0] });
});

it('keeps the new spacing from the slots granted at a lower rate when the rate goes up', async () => {
  const id = await subscriber(3);
  // A time on both grids (416.667 ms and 156.25 ms apart), whose slots do not coincide after it.
  const t0 = Math.ceil(Date.now() / 5000) * 5000 + 5000;
  const before = await new SandboxReceivers(states).take(id, 3, t0);
  expect(before.starts.length).toBeGreaterThan(0);
  expect(await states.setRate(id, 8)).toBe(true);
  const sandbox = new SandboxReceivers(states);
  // At once, the epochs beside the slower grid's are left empty; a moment later the new grid runs.
  const soon = await sandbox.take(id, 10, t0);
  const later = await sandbox.take(id, 10, t0 + 1500);
  expect(later.starts.length).toBeGreaterThan(0);
  const starts = [...before.starts, ...soon.starts, ...later.starts].sort((a, b) => a - b);
  for (let i = 1; i < starts.length; i++) {
    expect(starts[i]! - starts[i - 1]!).toBeGreaterThanOrEqual(spacingMs(8) - 0.001);
  }
});

it('grants nothing more at the old, denser spacing once the rate goes down', async () => {
  const id = await subscriber(8);
  const t0 = Math.ceil(Date.now() / 5000) * 5000 + 5000;
  // One sandbox holds a slot of the next epoch at 8 a second (156.25 ms apart), whose other
  // slot is still free.
  const before = await new SandboxReceivers(states).take(id, 1, t0);
  expect(before.starts.length).toBeGreaterThan(0);
  expect(await states.setRate(id, 3)).toBe(true);
  // Another asks at once, and later: none of its starts comes closer than the new spacing to
  // any other, the old grid's included (which the epochs granted at 8 a second would give).
  const sandbox = new SandboxReceivers(states);
  const soon = await sandbox.take(id, 10, t0);
  const later = await sandbox.take(id, 10, t0 + 2000);
  const after = [...soon.starts, ...later.starts];
  expect(after.length).toBeGreaterThan(0);
  for (const start of after) {
    for (const other of [...before.starts, ...after]) {
      if (other !== start)
        expect(Math.abs(start - other)).toBeGreaterThanOrEqual(spacingMs(3) - 0.001);
    }
  }
});

it('a 410 stops the sandbox that heard it at once, though it holds slots for later batches', async () => {
  const id = await subscriber(1000);
  const sandbox = new SandboxReceivers(states);
  const gateAt = (at: number) =>
    new ReceiverGate({ states, sandbox, events: quiet, now: () => at });
  const second = Math.ceil(Date.now() / 1000) * 1000 + 2000;
  const busy = gateAt(second);
  await Promise.all(Array.from({ length: 40 }, () => busy.admit(id)));
  // The next second's first batch is granted what the sandbox asked for in the one before.
  const gate = gateAt(second + 1000);
  expect((await gate.admit(id)).verdict).toBe('go');
  expect(sandbox.get(id)!.slots.length).toBeGreaterThan(10);
  await gate.report(id, {
    webhookId: 'msg_gone',
    attempt: 1,
    storedAt: new Date(second).toISOString(),
    startedAt: second + 1000,
    result: { status: 410 },
  });
  const before = calls.length;
  expect(await gateAt(second + 1100).admit(id)).toEqual({ verdict: 'disabled' });
  expect(calls.slice(before)).toEqual([]);
});

it('gives nothing to a removed subscriber, and nothing more once it is disabled', async () => {
  const id = await subscriber();
  const sandbox = new SandboxReceivers(states);
  const gate = new ReceiverGate({ states, sandbox, events: quiet });
  expect((await gate.admit(id)).verdict).toBe('go');
  await states.disable(id, new Date().toISOString(), '410 Gone', new Date().toISOString());
  // Past what the sandbox holds: the next grant is refused, the item read says why.
  const later = Date.now() + 3 * PACE_EPOCH_MS;
  const after = new ReceiverGate({ states, sandbox, events: quiet, now: () => later });
  expect(await after.admit(id)).toEqual({ verdict: 'disabled' });
  await subscriptions.remove(id);
  const gone = new ReceiverGate({ states, sandbox, events: quiet, now: () => later + 3_000 });
  expect(await gone.admit(id)).toEqual({ verdict: 'removed' });
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
  let recorded = (await states.record(id, {
    attempts: Array.from({ length: 18 }, (_, i) => attempt(i, false)),
    slowdown: 0,
    earlier: [],
  }))!;
  expect(recorded.view.consecutiveFailures).toBe(18);
  expect(recorded.view.failingSince).toBe(Date.UTC(2026, 10, 25, 8, 0, 0));
  recorded = (await states.record(id, {
    attempts: [attempt(20, false), attempt(21, true), attempt(22, false), attempt(23, false)],
    slowdown: 1,
    earlier: recorded.recent,
  }))!;
  // The success ended the run; the two failures after it start a new one.
  expect(recorded.view.consecutiveFailures).toBe(2);
  expect(recorded.view.failingSince).toBe(Date.UTC(2026, 10, 25, 8, 0, 22));
  expect(recorded.view.slowdown).toBe(1);
  const recent = (await states.recentAttempts(id))!;
  expect(recent).toEqual(recorded.recent);
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
  // Kept on their own item: the subscriber's stays small, and `list` sees subscribers only.
  expect(JSON.stringify(await states.read(id)).length).toBeLessThan(1024);
  expect((await subscriptions.list()).map((s) => s.subscriberId)).toContain(id);
  expect([...(await states.all()).keys()].every((key) => !key.includes('#'))).toBe(true);
});

it('records successes every 10 s, and a change (a run of failures begun or ended) at once', async () => {
  const id = await subscriber();
  const sandbox = new SandboxReceivers(states);
  const start = Date.now();
  const batch = async (at: number, status: number) => {
    const gate = new ReceiverGate({ states, sandbox, events: quiet, now: () => at });
    expect((await gate.admit(id)).verdict).toBe('go');
    await gate.report(id, {
      webhookId: `msg_r${at}`,
      attempt: 1,
      storedAt: new Date(at).toISOString(),
      startedAt: at,
      result: { status },
    });
    await gate.close();
    return (await states.recentAttempts(id))!.length;
  };
  expect(await batch(start, 204)).toBe(0);
  expect(await batch(start + 1_000, 204)).toBe(0);
  // The sandbox's successes are written once RECORD_EVERY_MS has passed, all of them.
  expect(await batch(start + RECORD_EVERY_MS, 204)).toBe(3);
  // A failure begins a run: written at once, as is the success that ends it.
  expect(await batch(start + RECORD_EVERY_MS + 1_000, 500)).toBe(4);
  expect((await states.read(id))!.consecutiveFailures).toBe(1);
  expect(await batch(start + RECORD_EVERY_MS + 2_000, 204)).toBe(5);
  expect((await states.read(id))!.consecutiveFailures).toBe(0);
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
