/**
 * GET /plants?tag=T in-process, with a recording client in place of DynamoDB: the Query of the
 * index it sends, the cursor bound to its tag (every mismatch 400, nothing sent), the tag's
 * rules, ids exact at the int64 edges, deleted-marked items skipped, and a backfilling index
 * answered 503 with Retry-After.
 */
import { NumberValue, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { makeListPlantsHandler } from '../../../lambda/list-plants/handler';
import { decodeCursor, encodeCursor, tagDigest } from '../../../lambda/plants/cursor';
import {
  BACKFILLING_MESSAGE,
  INDEX_BUILDING_RETRY_AFTER_SECONDS,
} from '../../../lambda/plants/index-building';
import { PLANTS_BY_TAG_INDEX } from '../../../lambda/aws/tables';
import { plantsEvent } from '../../support/events';
import { captureOutput } from '../../support/output';

const SAME_LIST =
  'cursor: must be the next value of a previous page of the same list (the same tag, or none)';
const TAG_RULE = 'tag: must not be empty, and at most 2048 bytes in UTF-8';
const MIN = -(2n ** 63n);
const MAX = 2n ** 63n - 1n;

/** A client that records each command and answers `answer` (or throws it when an Error). */
function harness(answer: Record<string, unknown> | Error = {}) {
  const sent: { constructor: { name: string }; input: Record<string, unknown> }[] = [];
  const plants = {
    send: async (command: (typeof sent)[number]) => {
      sent.push(command);
      if (answer instanceof Error) throw answer;
      return answer;
    },
  } as unknown as DynamoDBDocumentClient;
  const handler = makeListPlantsHandler({ plants, tableName: 'plants' });
  const list = async (query: Record<string, string>) => {
    const result = await handler(plantsEvent({ method: 'GET', route: '/plants', query }));
    return { ...result, json: result.body === undefined ? undefined : JSON.parse(result.body) };
  };
  return { list, sent };
}

let output: ReturnType<typeof captureOutput>;
beforeEach(() => {
  output = captureOutput();
});
afterEach(() => output.restore());

it('one Query of the index, in id order, resumed after the cursor; the next cursor binds the tag', async () => {
  const { list, sent } = harness({
    Items: [
      { id: new NumberValue(String(MAX)), name: 'Last', tag: 'aroid' },
      { id: new NumberValue('5'), name: 'Gone', tag: 'aroid', deletedAt: '2026-01-01T00:00:00Z' },
    ],
    LastEvaluatedKey: { tag: 'aroid', id: new NumberValue(String(MAX)) },
  });
  const answer = await list({ tag: 'aroid', limit: '2', cursor: encodeCursor(MIN, 'aroid') });
  expect(sent.map((c) => c.constructor.name)).toEqual(['QueryCommand']);
  expect(sent[0]!.input).toEqual({
    TableName: 'plants',
    IndexName: PLANTS_BY_TAG_INDEX.name,
    KeyConditionExpression: '#tag = :tag',
    ExpressionAttributeNames: { '#tag': 'tag' },
    ExpressionAttributeValues: { ':tag': 'aroid' },
    Limit: 2,
    ExclusiveStartKey: { tag: 'aroid', id: MIN },
  });
  // Every digit, as text; the deleted-marked item is skipped as the plain list skips it.
  expect(answer.body).toBe(
    `{"plants":[{"id":${MAX},"name":"Last","tag":"aroid"}],"next":"${encodeCursor(MAX, 'aroid')}"}`,
  );
  expect(decodeCursor(answer.json.next)).toEqual({ id: MAX, tag: tagDigest('aroid') });
});

it('the last page has no next', async () => {
  const { list } = harness({ Items: [{ id: new NumberValue(String(MIN)), name: 'F', tag: 't' }] });
  expect((await list({ tag: 't' })).body).toBe(`{"plants":[{"id":${MIN},"name":"F","tag":"t"}]}`);
});

const plain = encodeCursor(42n);
const aroid = encodeCursor(42n, 'aroid');
it.each([
  ['a cursor of another tag', { tag: 'fern', cursor: aroid }],
  ['a tag cursor without a tag', { cursor: aroid }],
  ['a plain cursor with a tag', { tag: 'aroid', cursor: plain }],
  ['a tag cursor whose tag differs only in case', { tag: 'Aroid', cursor: aroid }],
])('%s is 400 and reaches nothing', async (_, query) => {
  const { list, sent } = harness();
  expect(await list(query)).toMatchObject({
    statusCode: 400,
    json: { error: 400, message: SAME_LIST },
  });
  expect(sent).toEqual([]);
});

it.each([
  ['a made-up digest', Buffer.from('42.AAAAAAAAAAAAAAAA!').toString('base64url')],
  ['a short digest', Buffer.from('42.abc').toString('base64url')],
  ['two digests', Buffer.from(`42.${tagDigest('a')}.${tagDigest('a')}`).toString('base64url')],
  ['a digest on a non-integer', Buffer.from(`4x.${tagDigest('a')}`).toString('base64url')],
])('%s is not a cursor: 400', async (_, cursor) => {
  const { list, sent } = harness();
  expect((await list({ tag: 'a', cursor })).json).toEqual({
    error: 400,
    message: 'cursor: must be the next value of a previous page',
  });
  expect(sent).toEqual([]);
});

it.each([
  ['empty', ''],
  ['of 2,049 bytes in UTF-8', 'x'.repeat(2_047) + 'é'],
])('a tag %s is 400 and reaches nothing', async (_, tag) => {
  const { list, sent } = harness();
  expect((await list({ tag })).json).toEqual({ error: 400, message: TAG_RULE });
  expect(sent).toEqual([]);
});

it.each([
  ['of 100 characters outside the BMP', '🌵'.repeat(100)],
  // A plant stored before the limits may have one: listed by it as long as the index takes it.
  ['longer than a create takes, of 2,048 bytes', 'x'.repeat(2_046) + 'é'],
])('a tag %s is listed', async (_, tag) => {
  const { list, sent } = harness({ Items: [] });
  expect((await list({ tag })).statusCode).toBe(200);
  expect(sent).toHaveLength(1);
});

it('a backfilling index answers 503 with Retry-After, never a list', async () => {
  const refusal = Object.assign(new Error(BACKFILLING_MESSAGE), { name: 'ValidationException' });
  const { list } = harness(refusal);
  const answer = await list({ tag: 'aroid' });
  expect(answer.statusCode).toBe(503);
  expect(answer.headers).toMatchObject({
    'retry-after': String(INDEX_BUILDING_RETRY_AFTER_SECONDS),
  });
  expect(answer.json).toMatchObject({ error: 503 });
});

it('another ValidationException stays a 500', async () => {
  const other = Object.assign(new Error('The provided starting key is invalid'), {
    name: 'ValidationException',
  });
  expect((await harness(other).list({ tag: 'aroid' })).statusCode).toBe(500);
});

it.each([
  ['tag=aroid&tag=fern', 'tag: must be given once'],
  ['limit=2&tag=a&limit=3&tag=b', 'limit: must be given once; tag: must be given once'],
])(
  '%s (API Gateway joins a repeat with commas) is 400 and reaches nothing',
  async (raw, message) => {
    const sent: unknown[] = [];
    const plants = { send: async (command: unknown) => (sent.push(command), {}) };
    const handler = makeListPlantsHandler({
      plants: plants as unknown as DynamoDBDocumentClient,
      tableName: 'plants',
    });
    const params = new URLSearchParams(raw);
    const joined = Object.fromEntries(
      [...params.keys()].map((k) => [k, params.getAll(k).join(',')]),
    );
    const event = plantsEvent({ method: 'GET', route: '/plants', query: joined });
    event.rawQueryString = raw;
    const answer = await handler(event);
    expect(answer.statusCode).toBe(400);
    expect(JSON.parse(answer.body!)).toEqual({ error: 400, message });
    expect(sent).toEqual([]);
  },
);
