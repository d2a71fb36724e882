/**
 * The local stream finds records as Lambda's mapping does, by polling the shard 4 times a second:
 * a record made while a batch runs, or just after a poll, waits for the next poll, so a burst of
 * writes reaches the fan-out in a few batches instead of an invocation per write. What one poll
 * read goes on in batches one after another, so a backlog is not held to 4 batches a second.
 */
import type { DynamoDBRecord } from 'aws-lambda';
import { STREAM_POLL_INTERVAL_MS, STREAM_SOURCE } from '../../../lib/definitions/webhooks';
import { LocalStream } from '../../../lib/local/dynamodb/stream';

const TABLE = 'plants';

/**
 * A stream whose fan-out records each batch, with when it came; `holdBatches` keeps batches
 * running until released; `failNext` makes the next batch report the records of these ids (or
 * identifiers that name none) failed.
 */
function streamUnderTest() {
  const batches: { at: number; ids: string[] }[] = [];
  const logged: string[] = [];
  const failures: (readonly string[])[] = [];
  let hold: Promise<void> | undefined;
  const stream = new LocalStream({
    tableName: TABLE,
    invoke: async (event: { Records: DynamoDBRecord[] }) => {
      const ids = event.Records.map((r) => String(r.dynamodb?.Keys?.id?.N));
      batches.push({ at: performance.now(), ids });
      await hold;
      const failed = failures.shift() ?? [];
      return {
        batchItemFailures: failed.map((id) => ({
          itemIdentifier:
            event.Records.find((r) => r.dynamodb?.Keys?.id?.N === id)?.dynamodb?.SequenceNumber ??
            id,
        })),
      };
    },
    scale: 0.001,
    maxRecordAgeMs: 60_000,
    log: (line) => logged.push(line),
  });
  const insert = (id: number) =>
    stream.record({
      tableName: TABLE,
      keys: { id: { N: String(id) } },
      newItem: { id: { N: String(id) }, name: { S: `plant ${id}` } },
    });
  const holdBatches = (): (() => void) => {
    let release!: () => void;
    hold = new Promise<void>((resolve) => (release = resolve));
    return () => {
      hold = undefined;
      release();
    };
  };
  return {
    stream,
    batches,
    logged,
    insert,
    failNext: (...ids: string[]) => failures.push(ids),
    holdBatches,
    /** Record `id` goes to the fan-out (the shard idle, at once), whose batch is kept running. */
    async heldFirstBatch(id: number): Promise<() => void> {
      const release = holdBatches();
      insert(id);
      await waitFor(() => batches.length === 1);
      return release;
    },
  };
}

const waitFor = async (check: () => boolean, ms = 5_000): Promise<void> => {
  const until = performance.now() + ms;
  while (!check()) {
    if (performance.now() > until) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
};

it('hands a record to the fan-out at once when the shard has been idle', async () => {
  const { stream, batches, insert } = streamUnderTest();
  const made = performance.now();
  insert(1);
  await waitFor(() => batches.length === 1);
  expect(batches[0]!.ids).toEqual(['1']);
  expect(batches[0]!.at - made).toBeLessThan(STREAM_POLL_INTERVAL_MS);
  await stream.close();
});

it('gathers the records made meanwhile into the next poll, a poll interval after the last', async () => {
  const { stream, batches, heldFirstBatch, insert } = streamUnderTest();
  const release = await heldFirstBatch(1);
  // Made while the first batch runs, one by one.
  for (let id = 2; id <= 6; id++) {
    insert(id);
    await new Promise((resolve) => setImmediate(resolve));
  }
  release();
  await waitFor(() => batches.length === 2);
  expect(batches[1]!.ids).toEqual(['2', '3', '4', '5', '6']);
  expect(batches[1]!.at - batches[0]!.at).toBeGreaterThanOrEqual(STREAM_POLL_INTERVAL_MS - 2);
  // A record just after that poll waits for the one after it.
  insert(7);
  await waitFor(() => batches.length === 3);
  expect(batches[2]!.ids).toEqual(['7']);
  expect(batches[2]!.at - batches[1]!.at).toBeGreaterThanOrEqual(STREAM_POLL_INTERVAL_MS - 2);
  await stream.close();
});

it('hands on everything a poll read, a batch after another, without waiting for the next poll', async () => {
  const { stream, batches, heldFirstBatch, insert } = streamUnderTest();
  const release = await heldFirstBatch(0);
  const { batchSize } = STREAM_SOURCE;
  for (let id = 1; id <= 2 * batchSize + 1; id++) insert(id);
  release();
  await waitFor(() => batches.length === 4);
  expect(batches.map((b) => b.ids.length)).toEqual([1, batchSize, batchSize, 1]);
  // One poll read them all: its batches follow each other at once.
  expect(batches[1]!.at - batches[0]!.at).toBeGreaterThanOrEqual(STREAM_POLL_INTERVAL_MS - 2);
  expect(batches[3]!.at - batches[1]!.at).toBeLessThan(STREAM_POLL_INTERVAL_MS);
  // Every record once, in the order made.
  expect(batches.flatMap((b) => b.ids)).toEqual(
    Array.from({ length: 2 * batchSize + 2 }, (_, id) => String(id)),
  );
  await stream.close();
});

const ids = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => String(from + i));

it('hands on only what a poll read: records made while its batches run wait for the next', async () => {
  const { stream, batches, heldFirstBatch, insert, holdBatches } = streamUnderTest();
  const { batchSize } = STREAM_SOURCE;
  const releaseFirst = await heldFirstBatch(0);
  for (let id = 1; id <= batchSize + 1; id++) insert(id);
  releaseFirst();
  const releaseSecond = holdBatches();
  await waitFor(() => batches.length === 2);
  insert(500);
  releaseSecond();
  await waitFor(() => batches.length === 4);
  expect(batches.map((b) => b.ids)).toEqual([
    ['0'],
    ids(1, batchSize),
    [String(batchSize + 1)],
    ['500'],
  ]);
  expect(batches[3]!.at - batches[1]!.at).toBeGreaterThanOrEqual(STREAM_POLL_INTERVAL_MS - 2);
  await stream.close();
});

it('retries from the failure with the lowest sequence number, and a batch naming no record whole', async () => {
  const { stream, batches, heldFirstBatch, insert, failNext } = streamUnderTest();
  failNext();
  failNext('60', '40');
  failNext('no such record');
  const release = await heldFirstBatch(0);
  for (let id = 1; id <= 80; id++) insert(id);
  release();
  await waitFor(() => batches.length === 4);
  expect(batches.map((b) => b.ids)).toEqual([['0'], ids(1, 80), ids(40, 80), ids(40, 80)]);
  await stream.close();
});

it('hands on what it holds when closed, without waiting for a poll', async () => {
  const { stream, batches, logged, insert } = streamUnderTest();
  insert(1);
  await waitFor(() => batches.length === 1);
  insert(2);
  insert(3);
  const closing = performance.now();
  await stream.close();
  expect(batches.map((b) => b.ids)).toEqual([['1'], ['2', '3']]);
  expect(batches[1]!.at - closing).toBeLessThan(STREAM_POLL_INTERVAL_MS);
  expect(logged).toEqual([]);
  insert(4);
  await new Promise((resolve) => setTimeout(resolve, STREAM_POLL_INTERVAL_MS + 20));
  expect(batches).toHaveLength(2);
});

it('logs what it could not hand on when closed, with the replay that delivers it', async () => {
  const { stream, batches, logged, insert, failNext } = streamUnderTest();
  insert(1);
  await waitFor(() => batches.length === 1);
  insert(2);
  insert(3);
  failNext('3');
  await stream.close();
  expect(batches.map((b) => b.ids)).toEqual([['1'], ['2', '3']]);
  expect(logged).toHaveLength(1);
  expect(logged[0]).toMatch(
    /^fan-out: 1 stream records were not handed on before the stop; npm run webhook -- replay --since \d{4}-\d\d-\d\dT[\d:.]+Z delivers their plants$/,
  );
});
