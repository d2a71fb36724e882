/**
 * Receivers that are down, ask us to wait, are gone, or take only so many requests a second,
 * through the local runtime (`npm start` in-process) with the schedule at 1/10,000 of its real
 * length: a receiver down for good is dead-lettered no sooner than the horizon, a 429's long
 * `Retry-After` is waited out, a 410 disables and `enable` delivers what was missed with the
 * webhook-ids it would have had, and a rate-limited receiver is never started more than its rate
 * a second, loses nothing and has nothing dead-lettered.
 */
import { runCommand } from '../../support/run-cli';
import { cliEnvironment, useLocalService } from '../../support/local-service';
import {
  pastRedelivery,
  startReceiver,
  until,
  type Answer,
  type Receiver,
} from '../../support/webhook-receiver';
import { HORIZON_SECONDS, MAX_ATTEMPTS } from '../../../lambda/webhook/schedule';

jest.setTimeout(600_000);

const SCALE = 0.0001;
const service = useLocalService('webhook-receivers', { webhookRetryScale: SCALE });
const cli = (...args: string[]) => runCommand('webhook', args, cliEnvironment(service));

const receivers: Receiver[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
});

/** A receiver subscribed through the CLI (`add` options after the URL); answers its id. */
async function subscribe(answer: Answer, ...options: string[]): Promise<[Receiver, string]> {
  const receiver = await startReceiver(answer);
  receivers.push(receiver);
  const added = await cli('add', '--url', receiver.url, ...options);
  expect(added.code).toBe(0);
  receiver.secret = added.stdout.trim();
  return [receiver, /subscriberId (sub_\S+)/.exec(added.stderr)![1]!];
}

let nextId = 1000;
/** Creates `count` plants, `parallel` at a time; answers their ids. */
async function createPlants(count: number, parallel = 10): Promise<string[]> {
  const ids = Array.from({ length: count }, () => String(nextId++));
  for (let i = 0; i < ids.length; i += parallel) {
    await Promise.all(
      ids.slice(i, i + parallel).map(async (id) => {
        // A 503 (the engine busy on a loaded machine), or the gateway's 500 (the authorizer
        // timed out) stored nothing: sent again, as the client does; a retry of a plant that
        // was stored is answered 200, unchanged, and delivers nothing more. Beside CPU burners
        // the engine was busy for over 10 s: a minute of tries.
        for (let tries = 1; ; tries++) {
          const answer = await fetch(`${service.url}/plants`, {
            method: 'POST',
            headers: {
              authorization: `Bearer ${service.devToken}`,
              'content-type': 'application/json',
            },
            body: `{"id":${id},"name":"plant ${id}"}`,
          });
          if ((answer.status === 503 || answer.status === 500) && tries < 60) {
            await sleep(1_000);
            continue;
          }
          expect(answer.status).toBe(200);
          break;
        }
      }),
    );
  }
  return ids;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const plantIdOf = (body: string) => /"id":(-?\d+)/.exec(body)![1]!;

/** `list`'s row for a subscriber, by column name. */
async function listed(subscriberId: string): Promise<Record<string, string>> {
  const out = (await cli('list')).stdout.split('\n').filter(Boolean);
  const header = out[0]!.split('\t');
  const row = out.find((line) => line.startsWith(`${subscriberId}\t`))!.split('\t');
  return Object.fromEntries(header.map((name, i) => [name, row[i]!]));
}

const deadLetters = async () =>
  (await cli('dead-letters')).stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split('\t'));

it('dead-letters a receiver down for good no sooner than the horizon, and lists its failures in a row', async () => {
  const [down, subscriberId] = await subscribe(() => 500, '--name', 'down');
  const [plant] = await createPlants(1);
  // Each attempt also waits the queue's batching window (1 s) twice: more than the scaled delays.
  // At least once: a second copy of the delivery (a queue send taken but answered too late for
  // the client) runs the rest of the schedule on its own, under the same webhook-id.
  const attempts = () => new Set(down.received.map((r) => r.attempt));
  const wholeSchedule = () =>
    expect(attempts()).toEqual(
      new Set(Array.from({ length: MAX_ATTEMPTS }, (_, n) => String(n + 1))),
    );
  // Bounded against a hang only: the scaled schedule, a starved machine's 20 s an attempt, and
  // one redelivery (a deliver invocation that timed out gives its messages back once their
  // visibility timeout, scaled, has passed), with room to spare.
  await until(
    () => attempts().has(String(MAX_ATTEMPTS)),
    () =>
      `every attempt of the schedule (seen: ${[...attempts()].join(' ')})\n${service.logTail()}`,
    pastRedelivery(HORIZON_SECONDS * 1000 * SCALE + MAX_ATTEMPTS * 20_000),
  );
  expect(new Set(down.received.map((r) => r.id)).size).toBe(1);
  const webhookId = down.received[0]!.id;
  wholeSchedule();
  let letters: string[][] = [];
  for (let tries = 0; tries < 100 && !letters.some((l) => l[1] === subscriberId); tries++) {
    letters = await deadLetters();
    await sleep(200);
  }
  // The delivery's dead letter; a second copy of it is given up on its own, so a second dead
  // letter of the same delivery (same webhook-id and plant) is at least once too.
  const mine = letters.filter((l) => l[1] === subscriberId);
  expect(mine.length).toBeGreaterThanOrEqual(1);
  expect(mine.every((l) => l[0] === webhookId && l[2] === plant)).toBe(true);
  // Given up after the 13th attempt, not before and not after a 14th: an arrival of a later
  // attempt would have come before its dead letter was sent.
  wholeSchedule();
  // The schedule's whole span, scaled: no last attempt sooner than the horizon after the first,
  // and no dead letter (deadSince, a second copy's too) sooner either (one clock: the runtime
  // and the receiver share this process).
  const at = (attempt: number) =>
    Math.min(...down.received.filter((r) => r.attempt === String(attempt)).map((r) => r.at));
  expect(at(MAX_ATTEMPTS) - at(1)).toBeGreaterThanOrEqual(HORIZON_SECONDS * 1000 * SCALE);
  for (const [, , , deadSince] of mine) {
    expect(Date.parse(deadSince!) - at(1)).toBeGreaterThanOrEqual(HORIZON_SECONDS * 1000 * SCALE);
  }
  // The batch that gave the delivery up writes the run after it queued the dead letter; a
  // second copy's attempts make it longer, but never longer than the attempts that arrived.
  const inARow = /^(\d+) in a row since /;
  const run = (row: Record<string, string>) => Number(inARow.exec(row.failures ?? '')?.[1] ?? 0);
  let row = await listed(subscriberId);
  for (let tries = 0; tries < 50 && run(row) < MAX_ATTEMPTS; tries++) {
    await sleep(200);
    row = await listed(subscriberId);
  }
  expect(row.failures).toMatch(inARow);
  expect(run(row)).toBeGreaterThanOrEqual(MAX_ATTEMPTS);
  expect(run(row)).toBeLessThanOrEqual(down.received.length);
  expect(row.state).toBe('active');
}, 900_000); // longer than the wait for the schedule (468 s)

it('waits out a 429 Retry-After far longer than the schedule step, and slows the subscriber down', async () => {
  const [slow, subscriberId] = await subscribe(
    (nth) => (nth === 1 ? { status: 429, headers: { 'retry-after': '20000' } } : 204),
    '--name',
    'slow',
  );
  await createPlants(1);
  await until(() => slow.delivered().size === 1, 'the delivery after the wait');
  const [first, second] = slow.received;
  // 20,000 s scaled; the schedule's next step would have been 5 s scaled (0.5 ms).
  expect(second!.at - first!.at).toBeGreaterThanOrEqual(20_000 * 1000 * SCALE);
  expect([first!.attempt, second!.attempt]).toEqual(['1', '2']);
  expect((await listed(subscriberId)).state).toBe('active');
});

it('disables a 410 Gone subscriber at once; enable delivers what was missed with the ids it would have had', async () => {
  let gone = true;
  const [receiver, subscriberId] = await subscribe(() => (gone ? 410 : 204), '--name', 'gone');
  const [first] = await createPlants(1);
  await until(() => receiver.received.length === 1, 'the 410');
  await until(
    async () => (await listed(subscriberId)).state.startsWith('disabled'),
    'the subscriber disabled',
  );
  const row = await listed(subscriberId);
  expect(row.state).toMatch(/^disabled since \d{4}-\d\d-\d\dT\S+Z: 410 Gone$/);
  const goneId = receiver.received[0]!.id;

  // While disabled: nothing is sent.
  const meanwhile = await createPlants(5);
  // Time enough for deliveries that must not come (the queue polls every few ms here).
  await sleep(3_000);
  expect(receiver.received).toHaveLength(1);

  gone = false;
  const enabled = await cli('enable', subscriberId);
  expect(enabled.code).toBe(0);
  expect((await listed(subscriberId)).state).toBe('active');
  const missedDelivered = () =>
    new Set([...receiver.delivered().values()].map((r) => plantIdOf(r.body)));
  await until(
    () => missedDelivered().size === 6,
    () =>
      `every missed plant (delivered: ${[...missedDelivered()].join(' ')}; enable said: ${enabled.stderr.trim()})\n${service.logTail()}`,
  );
  const byPlant = new Map([...receiver.delivered().values()].map((r) => [plantIdOf(r.body), r.id]));
  expect([...byPlant.keys()].sort()).toEqual([first!, ...meanwhile].sort());
  // The plant answered 410 comes again with the webhook-id of that first attempt.
  expect(byPlant.get(first!)).toBe(goneId);
  // After enable, new plants flow again.
  const [after] = await createPlants(1);
  await until(
    () => [...receiver.delivered().values()].some((r) => plantIdOf(r.body) === after),
    'a plant stored after enable',
  );
});

it('never starts more than its rate a second to a rate-limited receiver, loses nothing, dead-letters nothing', async () => {
  const rate = 5;
  const [limited, subscriberId] = await subscribe(
    () => 204,
    '--name',
    'limited',
    '--rate',
    String(rate),
  );
  expect((await listed(subscriberId)).rate).toBe(`${rate}/s`);
  const ids = await createPlants(40, 10);
  // Bounded against a hang only: 40 plants at 5 a second take 8 s, and a starved machine
  // may time out an invocation or two, whose deliveries come back.
  await until(() => limited.delivered().size >= ids.length, 'every plant', pastRedelivery(120_000));
  expect(new Set([...limited.delivered().values()].map((r) => plantIdOf(r.body)))).toEqual(
    new Set(ids),
  );
  // At least once: a plant may arrive twice (a send the queue took but whose answer came too
  // late for the client, or an invocation that timed out after its POST), always with its one
  // webhook-id, which is how the receiver tells it.
  const idOfPlant = new Map(
    [...limited.delivered().values()].map((r) => [plantIdOf(r.body), r.id]),
  );
  expect(limited.received.filter((r) => idOfPlant.get(plantIdOf(r.body)) !== r.id)).toEqual([]);
  // Waiting for the rate spends no attempt: every arrival is its delivery's first attempt.
  expect(limited.received.every((r) => r.attempt === '1' && r.answered === 204)).toBe(true);
  expect((await deadLetters()).filter((l) => l[1] === subscriberId)).toEqual([]);
  // The pace is kept where it is decided, the deliverer's starts, as its log lines say them
  // (the receiver's arrival times, in this busy process, bunch by the process's own delays).
  const starts = service.invocations
    .list()
    .filter((entry) => entry.functionName === 'deliver')
    .flatMap((entry) => entry.lines)
    .filter((line) => line.includes('"message":"delivered"') && line.includes(subscriberId))
    .map((line) => Date.parse((JSON.parse(line) as { startedAt: string }).startedAt));
  expect(starts.length).toBeGreaterThanOrEqual(ids.length);
  const peak = Math.max(...starts.map((t) => starts.filter((u) => u >= t && u < t + 1000).length));
  expect(peak).toBeLessThanOrEqual(rate);
});
