/**
 * A subscriber's pace on a real engine: grants made to several sandboxes at once never start two
 * requests closer than the pace allows, a busy sandbox makes one grant a second and no read, a
 * rate that goes up or down keeps the new spacing, a 410 stops the sandbox that heard it, a
 * removed or disabled subscriber gets nothing, and a `Retry-After` hold only moves forward.
 */
import { epochSlots, PACE_EPOCH_MS, spacingMs } from '../../../lambda/webhook/rate-limit';
import { ReceiverGate, type Admission } from '../../../lambda/deliver/receiver-gate';
import { SandboxReceivers } from '../../../lambda/deliver/sandbox-receivers';
import {
  calls,
  quiet,
  states,
  subscriber,
  subscriptions,
  useReceiverStates,
} from '../../support/receiver-states';

useReceiverStates();

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
