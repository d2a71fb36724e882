/**
 * The local stream of the plants table on a real engine: an insert makes one record once the
 * engine has written it — also when the caller gave up before the answer came (an SDK timeout
 * whose retry then answers "unchanged": the plant is stored, so its webhook must go out) — and a
 * refused or unconditional put makes none.
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { request } from 'node:http';
import { makeDocumentClient } from '../../lambda/shared/dynamodb';
import { PLANTS_TABLE } from '../../lambda/shared/tables';
import { startEngine, type LocalEngine } from '../../lib/local/engine';
import { LocalStream } from '../../lib/local/stream';

const records: DynamoDBRecord[] = [];
const stream = new LocalStream({
  tableName: PLANTS_TABLE.localName,
  invoke: async (event) => {
    records.push(...event.Records);
    return { batchItemFailures: [] };
  },
  scale: 1,
  log: () => undefined,
});
let engine: LocalEngine;
let client: ReturnType<typeof makeDocumentClient>;

beforeAll(async () => {
  engine = await startEngine({
    intercept: (req, res) => {
      stream.observe(req, res);
      return false;
    },
  });
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

/** Sends a PutItem as the SDK would, and drops the connection as soon as the body is sent. */
function putAndHangUp(id: number): Promise<void> {
  const body = JSON.stringify(insert(id));
  return new Promise((resolve) => {
    const req = request(`${engine.endpoint}/`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-amz-json-1.0',
        'x-amz-target': 'DynamoDB_20120810.PutItem',
        authorization:
          'AWS4-HMAC-SHA256 Credential=local/20260101/local/dynamodb/aws4_request, SignedHeaders=host, Signature=00',
        'x-amz-date': '20260101T000000Z',
      },
    });
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

it('an insert answered 200 makes one record; the same put refused, or a put without the condition, none', async () => {
  await client.send(new PutCommand({ ...insert(42), Item: { id: 42, name: 'plant 42' } }));
  await expect(
    client.send(new PutCommand({ ...insert(42), Item: { id: 42, name: 'plant 42' } })),
  ).rejects.toThrow('The conditional request failed');
  await client.send(
    new PutCommand({ TableName: PLANTS_TABLE.localName, Item: { id: 43, name: 'x' } }),
  );
  await until(() => recordedIds().includes('42'));
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect(recordedIds().filter((id) => id === '42' || id === '43')).toEqual(['42']);
});
