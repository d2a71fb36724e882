/**
 * Events for every change, end to end through `npm start` as a user runs it: a receiver
 * subscribed to newPlant, plantUpdated and plantDeleted (`webhook add --events`) sees a create,
 * a PUT, a PATCH, a DELETE and a re-create of the same id (ids at the int64 limits), and a create
 * over the mark an interrupted delete left, as typed, signed bodies it orders by (createdAt,
 * version) alone, dropping stale ones, whatever order they arrive in; a receiver that chose
 * nothing sees exactly the newPlant bodies it always did and nothing for the changes. Then
 * `webhook replay` queues the table's current state again under the first webhook-ids.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeDocumentClient } from '../../../lambda/aws/dynamodb';
import { PLANTS_TABLE } from '../../../lambda/aws/tables';
import { generateToken } from '../../../lambda/tokens/token';
import { freePort } from '../../../lib/local/process/free-port';
import { localCliClientConfig, localEngineTarget } from '../../../lib/npm-start/find';
import { startNpmStart, type ListeningNpmStart } from '../../../lib/npm-start/spawn';
import { runCommand } from '../../support/run-cli';
import { startReceiver, until, type Receiver } from '../../support/webhook-receiver';

jest.setTimeout(300_000);

const MAX = '9223372036854775807';
const MIN = '-9223372036854775808';
const MARKED = '9007199254740993';

const dataDir = mkdtempSync(join(tmpdir(), 'plant-store-events-'));
const { token } = generateToken();
let npmStart: ListeningNpmStart;
let cliEnv: Record<string, string>;
const receivers: Receiver[] = [];

beforeAll(async () => {
  const [port, dbPort] = [await freePort(), await freePort()];
  cliEnv = { PLANT_STORE_DB_PORT: String(dbPort), PLANT_STORE_DATA_DIR: dataDir };
  npmStart = await startNpmStart({
    env: {
      ...cliEnv,
      PORT: String(port),
      PLANT_STORE_DEV_TOKEN: token,
      PLANT_STORE_WEBHOOK_RETRY_SCALE: '0.0001',
    },
    args: ['--memory', '--no-watch'],
  });
}, 300_000);
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await npmStart?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const cli = (...args: string[]) => runCommand('webhook', args, cliEnv);

/** Subscribes `receiver` (with `--events` when given); answers its subscriber id. */
async function subscribe(receiver: Receiver, ...options: string[]): Promise<string> {
  const added = await cli('add', '--url', receiver.url, ...options);
  expect(added).toMatchObject({ code: 0 });
  receiver.secret = added.stdout.trim();
  return /subscriberId (sub_\S+)/.exec(added.stderr)![1]!;
}

/** One API request with the dev token; answers the status and the ETag. */
async function call(method: string, path: string, body?: string, type = 'application/json') {
  const answer = await fetch(`${npmStart.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': type } : {}) },
    body,
  });
  await answer.arrayBuffer();
  return [answer.status, answer.headers.get('etag')];
}

/** A typed body as a receiver reads it: the id kept as text (every digit), the rest parsed. */
interface Event {
  type: string;
  id: string;
  createdAt: string;
  version: number;
  name?: string;
}
function parse(body: string): Event {
  return { ...JSON.parse(body), id: /"id":(-?\d+)/.exec(body)![1]! };
}

/**
 * The receiver's rule (docs/guides/receiving-webhooks.md): per id, keep the event with the greatest (createdAt,
 * version); one with a smaller or equal pair is stale and dropped.
 */
function latest(events: readonly Event[]): Map<string, Event> {
  const kept = new Map<string, Event>();
  for (const event of events) {
    const held = kept.get(event.id);
    const newer =
      !held ||
      event.createdAt > held.createdAt ||
      (event.createdAt === held.createdAt && event.version > held.version);
    if (newer) kept.set(event.id, event);
  }
  return kept;
}

it('tells each subscriber the events it chose, typed and orderable, and nothing else', async () => {
  // The all-events receiver fails each delivery's first attempt: retried under the same id.
  const all = await startReceiver((nth) => (nth === 1 ? 503 : 204));
  const plain = await startReceiver();
  receivers.push(all, plain);
  const allId = await subscribe(all, '--events', 'plantDeleted,newPlant,plantUpdated');
  const plainId = await subscribe(plain);
  expect(await cli('add', '--url', plain.url, '--events', 'newPlant,plantMoved')).toMatchObject({
    code: 2,
  });
  const rows = (await cli('list')).stdout.trim().split('\n');
  const column = rows[0]!.split('\t').indexOf('events');
  expect(
    rows
      .slice(1)
      .map((row) => row.split('\t')[column])
      .sort(),
  ).toEqual(['newPlant', 'newPlant,plantUpdated,plantDeleted']);

  // MAX: create, PUT, PATCH, DELETE, create again. MIN: create, PATCH.
  expect(await call('POST', '/plants', `{"id":${MAX},"name":"max"}`)).toEqual([200, null]);
  expect(await call('PUT', `/plants/${MAX}`, '{"name":"max 2","tag":"t"}')).toEqual([200, '"2"']);
  const patch = 'application/merge-patch+json';
  expect(await call('PATCH', `/plants/${MAX}`, '{"tag":null}', patch)).toEqual([200, '"3"']);
  expect((await call('DELETE', `/plants/${MAX}`))[0]).toBe(204);
  expect((await call('POST', '/plants', `{"id":${MAX},"name":"max again"}`))[0]).toBe(200);
  expect((await call('POST', '/plants', `{"id":${MIN},"name":"min","tag":"x"}`))[0]).toBe(200);
  expect(await call('PATCH', `/plants/${MIN}`, '{"name":"min 2"}', patch)).toEqual([200, '"2"']);
  // An interrupted delete: the mark written, the item not removed; then a create over it (a
  // MODIFY record in DynamoDB's stream, which an INSERT-only filter dropped).
  expect((await call('POST', '/plants', `{"id":${MARKED},"name":"marked"}`))[0]).toBe(200);
  const target = localEngineTarget(cliEnv);
  const engine = makeDocumentClient(localCliClientConfig(target.endpoint, target.credentials));
  await engine.send(
    new UpdateCommand({
      TableName: PLANTS_TABLE.localName,
      Key: { id: BigInt(MARKED) },
      UpdateExpression: 'SET deletedAt = :at, version = :two',
      ExpressionAttributeValues: { ':at': new Date().toISOString(), ':two': 2 },
    }),
  );
  engine.destroy();
  expect((await call('GET', `/plants/${MARKED}`))[0]).toBe(404);
  expect((await call('POST', '/plants', `{"id":${MARKED},"name":"marked again"}`))[0]).toBe(200);

  // 5 for MAX, 2 for MIN, 3 for MARKED (create, mark, create over it).
  await until(() => all.delivered().size === 10, 'every event reaches the all-events receiver');
  await until(() => plain.delivered().size === 5, 'every newPlant reaches the plain receiver');
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  expect(all.delivered().size).toBe(10);
  expect(plain.delivered().size).toBe(5);
  expect([...all.received, ...plain.received].every((r) => r.verified)).toBe(true);
  // Each delivery's retry carried its first attempt's webhook-id; a second copy of a delivery
  // (at least once: a queue send whose answer came too late for the client) carries it too, and
  // is accepted at once.
  for (const id of all.delivered().keys()) {
    const answers = all.received.filter((r) => r.id === id).map((r) => r.answered);
    expect(answers).toEqual([503, ...Array(answers.length - 1).fill(204)]);
    expect(answers.length).toBeGreaterThanOrEqual(2);
  }

  // The plain receiver: newPlant bodies exactly as before events existed, one per incarnation.
  expect(new Set([...plain.delivered().values()].map((r) => r.body))).toEqual(
    new Set([
      `{"id":${MAX},"name":"max"}`,
      `{"id":${MAX},"name":"max again"}`,
      `{"id":${MIN},"name":"min","tag":"x"}`,
      `{"id":${MARKED},"name":"marked"}`,
      `{"id":${MARKED},"name":"marked again"}`,
    ]),
  );

  // The typed bodies, ordered per id by (createdAt, version) alone.
  const typed = [...all.delivered().values()].map((r) => r.body);
  const ordered = (id: string) =>
    typed
      .map(parse)
      .filter((e) => e.id === id)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.version - b.version)
      .map(({ type, version, name }) => [type, version, name ?? null]);
  expect(ordered(MAX)).toEqual([
    ['newPlant', 1, 'max'],
    ['plantUpdated', 2, 'max 2'],
    ['plantUpdated', 3, 'max 2'],
    ['plantDeleted', 4, null],
    // Created again: its versions continue from the deletion's.
    ['newPlant', 5, 'max again'],
  ]);
  expect(ordered(MIN)).toEqual([
    ['newPlant', 1, 'min'],
    ['plantUpdated', 2, 'min 2'],
  ]);
  expect(ordered(MARKED)).toEqual([
    ['newPlant', 1, 'marked'],
    ['plantDeleted', 2, null],
    ['newPlant', 3, 'marked again'],
  ]);
  expect(typed).toContain(
    `{"type":"plantUpdated","id":${MAX},"name":"max 2","tag":"t","createdAt":"${parse(typed.find((b) => b.includes('"tag":"t"'))!).createdAt}","version":2}`,
  );
  expect(typed.filter((b) => b.includes('plantDeleted'))).toEqual(
    expect.arrayContaining([
      expect.stringMatching(
        new RegExp(`^\\{"type":"plantDeleted","id":${MAX},"createdAt":"[^"]+","version":4\\}$`),
      ),
    ]),
  );

  // Whatever order they arrive in, the receiver's rule ends on the plants as stored.
  const events = typed.map(parse);
  for (const arrival of [events, [...events].reverse()]) {
    const kept = latest(arrival);
    expect(kept.get(MAX)).toMatchObject({ type: 'newPlant', name: 'max again' });
    expect(kept.get(MIN)).toMatchObject({ type: 'plantUpdated', name: 'min 2', version: 2 });
    expect(kept.get(MARKED)).toMatchObject({ type: 'newPlant', name: 'marked again' });
  }

  // Replay: the table's current state under the first ids. MAX and MARKED (now at version 1)
  // as newPlant, MIN as newPlant (its members as now) and its plantUpdated at version 2; no
  // deletion is replayed (the table holds none).
  const first = new Map([...all.delivered()].map(([id, r]) => [id, r.body]));
  const before = all.received.length;
  const replayed = await cli('replay', '--since', '2000-01-01T00:00:00Z', '--subscriber', allId);
  expect(replayed).toMatchObject({ code: 0 });
  expect(replayed.stderr).toMatch(/^queued 4 deliveries of 3 plants /);
  // Their ids were answered 204 before: the receiver accepts each at once.
  await until(() => all.received.length >= before + 4, 'the replayed deliveries');
  const again = new Map(all.received.slice(before).map((r) => [r.id, r.body]));
  expect(again.size).toBe(4);
  // The same ids; the same bodies, but for MIN's newPlant: its members as they are now.
  for (const [id, body] of again) {
    expect(first.has(id)).toBe(true);
    const event = parse(body);
    if (event.id === MIN && event.type === 'newPlant') {
      expect(body).toBe(first.get(id)!.replace('"name":"min"', '"name":"min 2"'));
    } else expect(body).toBe(first.get(id));
  }
  expect([...again.values()].map((b) => parse(b).type).sort()).toEqual([
    'newPlant',
    'newPlant',
    'newPlant',
    'plantUpdated',
  ]);

  // `test`: the example as this subscriber's newPlant body would be, typed.
  const tested = await cli('test', allId);
  expect(tested).toMatchObject({ code: 0 });
  const testId = tested.stdout.trim();
  await until(() => all.delivered().has(testId), 'the test delivery');
  expect(all.delivered().get(testId)!.body).toMatch(
    /^\{"type":"newPlant","id":9007199254740993,"name":"[^"]+".*"createdAt":"[^"]+","version":1\}$/,
  );

  // `update --events`: the plain receiver now chooses deletes alone, and gets their typed body.
  expect(await cli('update', plainId, '--events', 'plantDeleted')).toMatchObject({ code: 0 });
  expect(await cli('update', 'sub_nobody', '--events', 'newPlant')).toMatchObject({ code: 1 });
  expect((await call('DELETE', `/plants/${MIN}`))[0]).toBe(204);
  await until(() => plain.delivered().size === 6, 'the delete reaches the plain receiver');
  const deleted = plain.received.at(-1)!;
  expect(deleted.verified).toBe(true);
  expect(deleted.body).toMatch(
    new RegExp(`^\\{"type":"plantDeleted","id":${MIN},"createdAt":"[^"]+","version":3\\}$`),
  );
});
