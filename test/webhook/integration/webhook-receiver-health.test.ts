/**
 * A subscriber's health on a real engine: attempts are shown when a batch after a quiet second
 * ends, written on the subscriber's item when they change something or a delivery is given up
 * (and otherwise every 10 s), and keep the run of failures and a bounded list of attempts on
 * their own item; a disable is reported once, a dropped delivery is kept for replay (or sent
 * back to be delivered when `enable` came first), and `enable` keeps where to replay from until
 * the replay is done.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSRecord } from 'aws-lambda';
import { deliver } from '../../../lambda/deliver/deliver';
import { makeDocumentClient } from '../../../lambda/aws/dynamodb';
import { SUBSCRIPTIONS_TABLE } from '../../../lambda/aws/tables';
import { RECENT_ATTEMPTS_KEPT, WARN_AT_CONSECUTIVE_FAILURES } from '../../../lambda/webhook/health';
import { PUBLIC_ONLY } from '../../../lambda/webhook/address-policy';
import { HORIZON_SECONDS, MAX_ATTEMPTS } from '../../../lambda/webhook/schedule';
import { generateSecret } from '../../../lambda/webhook/signature';
import { QUIET_MS, ReceiverGate, RECORD_EVERY_MS } from '../../../lambda/deliver/receiver-gate';
import { SandboxReceivers } from '../../../lambda/deliver/sandbox-receivers';
import {
  engine,
  quiet,
  states,
  subscriber,
  subscriptions,
  useReceiverStates,
} from '../../support/receiver-states';

useReceiverStates();

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

it('shows a batch after a quiet second at once, and writes the subscriber only on a change or every 10 s', async () => {
  const id = await subscriber();
  const sandbox = new SandboxReceivers(states);
  const records = jest.spyOn(states, 'record');
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
    return (await states.recentAttempts(id))!.map((a) => a.webhookId);
  };
  try {
    // A lone success (no batch in the second before) is shown at once, on the attempts item alone.
    expect(await batch(start, 204)).toEqual([`msg_r${start}`]);
    expect(await batch(start + QUIET_MS, 204)).toEqual([
      `msg_r${start + QUIET_MS}`,
      `msg_r${start}`,
    ]);
    // A steady stream writes nothing more until the record is due.
    expect(await batch(start + QUIET_MS + 500, 204)).toHaveLength(2);
    expect(records).not.toHaveBeenCalled();
    // The subscriber's item once RECORD_EVERY_MS has passed; no attempt listed twice.
    expect(await batch(start + RECORD_EVERY_MS, 204)).toHaveLength(4);
    expect(records).toHaveBeenCalledTimes(1);
    // A failure begins a run: written at once, as is the success that ends it.
    expect(await batch(start + RECORD_EVERY_MS + 100, 500)).toHaveLength(5);
    expect((await states.read(id))!.consecutiveFailures).toBe(1);
    expect(await batch(start + RECORD_EVERY_MS + 200, 204)).toHaveLength(6);
    expect((await states.read(id))!.consecutiveFailures).toBe(0);
    expect(records).toHaveBeenCalledTimes(3);
  } finally {
    records.mockRestore();
  }
});

it('writes the run at once when a delivery is given up, not for a last attempt that earns another', async () => {
  const id = await subscriber();
  const sandbox = new SandboxReceivers(states);
  const records = jest.spyOn(states, 'record');
  const secret = generateSecret();
  const start = Date.now();
  // A receiver that answers every attempt 503 with `Retry-After: 1`: the gate holds it for that
  // second, so each batch comes 1.1 s after the last (all within one RECORD_EVERY_MS).
  const batch = async (n: number, attempt: number, firstAttemptAt = start) => {
    const at = start + n * 1_100;
    const gate = new ReceiverGate({ states, sandbox, events: quiet, now: () => at });
    const message = {
      webhookId: `msg_given${n}`,
      subscriberId: id,
      plantId: String(n),
      body: `{"id":${n},"name":"fern"}`,
      storedAt: new Date(start).toISOString(),
      attempt: attempt - 1,
      firstAttemptAt,
    };
    const { outcome } = await deliver(
      {
        messageId: `m${n}`,
        body: JSON.stringify(message),
        attributes: { ApproximateReceiveCount: '1' },
      } as unknown as SQSRecord,
      {
        subscriptions,
        secrets: { open: async () => secret },
        policy: PUBLIC_ONLY,
        post: async () => ({ status: 503, retryAfter: '1' }),
        now: () => at,
        gate,
      },
    );
    records.mockClear();
    await gate.close();
    return {
      outcome,
      written: records.mock.calls.length,
      run: (await states.read(id))!.consecutiveFailures,
    };
  };
  try {
    // Written one by one up to the warning; then the run is known, and waits for the record.
    for (let n = 1; n <= WARN_AT_CONSECUTIVE_FAILURES; n++) {
      expect(await batch(n, n)).toEqual({ outcome: 'failed', written: 1, run: n });
    }
    const known = { outcome: 'failed', written: 0, run: WARN_AT_CONSECUTIVE_FAILURES };
    expect(await batch(WARN_AT_CONSECUTIVE_FAILURES + 1, 5)).toEqual(known);
    // The schedule's last attempt and one past it, both long before the horizon: each earns
    // another attempt (the receiver's short Retry-After), so a later batch writes them.
    expect(await batch(WARN_AT_CONSECUTIVE_FAILURES + 2, MAX_ATTEMPTS)).toEqual(known);
    expect(await batch(WARN_AT_CONSECUTIVE_FAILURES + 3, MAX_ATTEMPTS + 1)).toEqual(known);
    // The last attempt at the horizon is given up: its dead letter is the last any batch hears of it.
    const horizonAgo = start - HORIZON_SECONDS * 1000;
    expect(await batch(WARN_AT_CONSECUTIVE_FAILURES + 4, MAX_ATTEMPTS, horizonAgo)).toEqual({
      outcome: 'dead-lettered',
      written: 1,
      run: WARN_AT_CONSECUTIVE_FAILURES + 4,
    });
  } finally {
    records.mockRestore();
  }
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

it('a drop covered by the replay point is kept while disabled; one older lowers it; once enabled, none is kept', async () => {
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
  // Enabled between the batch's read and the drop: each goes back to be delivered, one the
  // pending replay covers too (that replay may be what queued it: kept, it would be lost).
  const racing = new ReceiverGate({ states, events: quiet });
  expect(await racing.admit(id)).toEqual({ verdict: 'disabled' });
  await states.enable(id);
  expect(await racing.dropped(id, '2026-11-25T07:45:00.000Z')).toMatchObject({ kept: false });
  expect(await racing.dropped(id, '2026-11-25T05:00:00.000Z')).toMatchObject({ kept: false });
});

it('a drop the replay point covers is kept while still disabled, not once disabled again from a later plant', async () => {
  const id = await subscriber();
  await states.disable(id, '2026-11-25T08:00:00.000Z', '410 Gone', '2026-11-25T07:00:00.000Z');
  const stale = new ReceiverGate({ states, events: quiet });
  expect(await stale.admit(id)).toEqual({ verdict: 'disabled' });
  // Covered, and still disabled (a consistent read says so): kept for the next enable.
  expect(await stale.dropped(id, '2026-11-25T07:30:00.000Z')).toEqual({ kept: true });
  // Enabled, its replay done, then disabled again from a later plant: a copy of a plant between
  // the two replay points, dropped by a sandbox that still sees the first, would be lost if kept.
  await states.enable(id);
  const since = (await states.read(id))!.replayFrom!;
  await states.replayed(id, since);
  await states.disable(id, '2026-11-25T09:00:00.000Z', '410 Gone', '2026-11-25T08:30:00.000Z');
  expect(await stale.dropped(id, '2026-11-25T07:45:00.000Z')).toMatchObject({ kept: false });
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
