/**
 * The local stream of the plants table on a real engine, as DynamoDB's NEW_IMAGE stream makes it:
 * a write makes one record once the engine has written it — also when the caller gave up before
 * the answer came (an SDK timeout whose retry then answers "unchanged": the plant is stored, so
 * its webhook must go out); INSERT for a new item, MODIFY (the item after) for a put over one or
 * an update, REMOVE for a delete, which the deployed filter keeps from the fan-out; a refused
 * write, or one that leaves the item as it was, makes none.
 */
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { request } from 'node:http';
import { makeDocumentClient } from '../../../lambda/aws/dynamodb';
import { PLANTS_TABLE } from '../../../lambda/aws/tables';
import { startEngine, type LocalEngine } from '../../../lib/local/dynamodb/engine';
import { LocalStream } from '../../../lib/local/dynamodb/stream';
import { signedHeaders } from '../../support/signed-headers';

const records: DynamoDBRecord[] = [];
const stream = new LocalStream({
  tableName: PLANTS_TABLE.localName,
  invoke: async (event) => {
    records.push(...event.Records);
    return { batchItemFailures: [] };
  },
  scale: 1,
  maxRecordAgeMs: 60_000,
  log: () => undefined,
});
let engine: LocalEngine;
let client: ReturnType<typeof makeDocumentClient>;

beforeAll(async () => {
  engine = await startEngine({ onItemChange: stream.record });
  client = makeDocumentClient(engine.clientConfig);
});
afterAll(async () => {
  client.destroy();
  await stream.close();
  await engine.close();
});

const insert = (id: number) => ({
  TableName: PLANTS_TABLE.localName,
  Item: { id: { N: String(id) }, name: { S: `plant ${id}` } },
  ConditionExpression: 'attribute_not_exists(#id)',
  ExpressionAttributeNames: { '#id': 'id' },
});

/** Sends a PutItem as the SDK would (signed), and drops the connection as soon as the body is sent. */
async function putAndHangUp(id: number): Promise<void> {
  const body = JSON.stringify(insert(id));
  const headers = await signedHeaders(
    engine.endpoint,
    'dynamodb',
    { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'DynamoDB_20120810.PutItem' },
    body,
    engine.clientConfig.credentials,
  );
  return new Promise((resolve) => {
    const req = request(`${engine.endpoint}/`, { method: 'POST', headers });
    req.on('error', () => undefined);
    req.end(body, () => {
      req.destroy();
      resolve();
    });
  });
}

const recordedIds = () => records.map((record) => record.dynamodb?.Keys?.id?.N);

async function until(condition: () => Promise<boolean> | boolean): Promise<void> {
  for (let i = 0; i < 200 && !(await condition()); i++) {
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

it('a stored insert whose caller hung up before the answer still makes its record', async () => {
  await putAndHangUp(41);
  const stored = async () =>
    (await client.send(new GetCommand({ TableName: PLANTS_TABLE.localName, Key: { id: 41 } })))
      .Item !== undefined;
  await until(stored);
  expect(await stored()).toBe(true);
  await until(() => recordedIds().includes('41'));
  expect(recordedIds().filter((id) => id === '41')).toEqual(['41']);
});

it('an insert answered 200 makes one INSERT; the same put refused none; a put of a new id without a condition is an INSERT too', async () => {
  await client.send(new PutCommand({ ...insert(42), Item: { id: 42, name: 'plant 42' } }));
  await expect(
    client.send(new PutCommand({ ...insert(42), Item: { id: 42, name: 'plant 42' } })),
  ).rejects.toThrow('The conditional request failed');
  await client.send(
    new PutCommand({ TableName: PLANTS_TABLE.localName, Item: { id: 43, name: 'x' } }),
  );
  await until(() => recordedIds().includes('43'));
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect(records.filter((r) => ['42', '43'].includes(r.dynamodb!.Keys!.id!.N!))).toEqual([
    expect.objectContaining({ eventName: 'INSERT' }),
    expect.objectContaining({ eventName: 'INSERT' }),
  ]);
});

it('an update, or a put over an item, is a MODIFY with the item after; a delete is a REMOVE the filter drops; a no-op none', async () => {
  const TableName = PLANTS_TABLE.localName;
  const Key = { id: 9223372036854775807n };
  await client.send(new PutCommand({ TableName, Item: { ...Key, name: 'a' } }));
  await client.send(
    new UpdateCommand({
      TableName,
      Key,
      UpdateExpression: 'SET #name = :n, version = :v',
      ExpressionAttributeNames: { '#name': 'name' },
      ExpressionAttributeValues: { ':n': 'b', ':v': 2 },
    }),
  );
  // Nothing changes: DynamoDB writes no record for it.
  await client.send(new PutCommand({ TableName, Item: { ...Key, name: 'b', version: 2 } }));
  await client.send(new PutCommand({ TableName, Item: { ...Key, name: 'c' } }));
  await client.send(new DeleteCommand({ TableName, Key }));
  await client.send(new PutCommand({ TableName, Item: { ...Key, name: 'd' } }));
  const max = () => records.filter((r) => r.dynamodb!.Keys!.id!.N === '9223372036854775807');
  await until(() => max().length >= 4);
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect(max().map((r) => [r.eventName, r.dynamodb!.StreamViewType, r.dynamodb!.NewImage])).toEqual(
    [
      ['INSERT', 'NEW_IMAGE', { id: { N: '9223372036854775807' }, name: { S: 'a' } }],
      [
        'MODIFY',
        'NEW_IMAGE',
        { id: { N: '9223372036854775807' }, name: { S: 'b' }, version: { N: '2' } },
      ],
      ['MODIFY', 'NEW_IMAGE', { id: { N: '9223372036854775807' }, name: { S: 'c' } }],
      // The REMOVE never reaches the fan-out (STREAM_FILTER_PATTERN); the create after it is an INSERT.
      ['INSERT', 'NEW_IMAGE', { id: { N: '9223372036854775807' }, name: { S: 'd' } }],
    ],
  );
  const sequence = max().map((r) => BigInt(r.dynamodb!.SequenceNumber!));
  expect([...sequence].sort((a, b) => (a < b ? -1 : 1))).toEqual(sequence);
});

describe('a failing fan-out', () => {
  /** A stream on its own engine whose fan-out fails until `healthy()` says otherwise. */
  async function failingStream(maxRecordAgeMs: number, healthy: () => boolean) {
    const calls: string[][] = [];
    const givenUp: DynamoDBRecord[] = [];
    const own = new LocalStream({
      tableName: PLANTS_TABLE.localName,
      invoke: async (event) => {
        calls.push(event.Records.map((r) => r.dynamodb!.SequenceNumber!));
        if (healthy()) return { batchItemFailures: [] };
        return {
          batchItemFailures: [{ itemIdentifier: event.Records[0]!.dynamodb!.SequenceNumber }],
        };
      },
      scale: 1e-5,
      maxRecordAgeMs,
      log: () => undefined,
      onGiveUp: (record) => givenUp.push(record),
    });
    const ownEngine = await startEngine({ onItemChange: own.record });
    const ownClient = makeDocumentClient(ownEngine.clientConfig);
    const close = async () => {
      ownClient.destroy();
      await own.close();
      await ownEngine.close();
    };
    return { calls, givenUp, client: ownClient, close };
  }

  it('is retried far past ten times and its record delivered once the outage ends (nothing dropped)', async () => {
    let failures = 0;
    const s = await failingStream(60_000, () => ++failures > 40);
    try {
      await s.client.send(new PutCommand({ ...insert(51), Item: { id: 51, name: 'p' } }));
      await until(() => s.calls.length >= 41);
      // 40 failed invocations, then the one that took it; none after (nothing left pending).
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(s.calls).toHaveLength(41);
      expect(new Set(s.calls.flat()).size).toBe(1);
      expect(s.givenUp).toEqual([]);
    } finally {
      await s.close();
    }
  });

  it('gives a record up only past the maximum record age, to the failure destination', async () => {
    // 0.4 s of age: far more than ten retries 20 ms apart, then given up.
    const s = await failingStream(400, () => false);
    try {
      await s.client.send(new PutCommand({ ...insert(52), Item: { id: 52, name: 'p' } }));
      await until(() => s.givenUp.length > 0);
      expect(s.givenUp.map((r) => r.dynamodb?.Keys?.id?.N)).toEqual(['52']);
      expect(s.calls.length).toBeGreaterThan(10);
    } finally {
      await s.close();
    }
  });
});
