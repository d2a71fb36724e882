/**
 * GET /plants?tag=T against real engines — dynalite, and AWS's DynamoDB Local where Java is
 * available — with no SDK mocks: one Query of the index per page, that tag's plants only, in id
 * order, ids exact at the int64 limits, a walk over several pages, deleted-marked items skipped,
 * a tag changed or removed leaving the list, an empty tag stored and read as ever, a tag longer
 * than a create takes (stored before the limits) listed by it.
 */
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  PutItemCommand,
  UpdateTableCommand,
} from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { PLANTS_BY_TAG_INDEX } from '../../../lambda/aws/tables';
import { makeCreatePlantHandler } from '../../../lambda/create-plant/handler';
import { makeDeletePlantHandler } from '../../../lambda/delete-plant/handler';
import { makeGetPlantHandler } from '../../../lambda/get-plant/handler';
import { makeListPlantsHandler } from '../../../lambda/list-plants/handler';
import { makePatchPlantHandler } from '../../../lambda/patch-plant/handler';
import { makeUpdatePlantHandler } from '../../../lambda/update-plant/handler';
import { parseJson } from '../../../lambda/http/json';
import { PLANTS_TABLE } from '../../../lambda/aws/tables';
import { startEngine, type Engine } from '../../../lib/local/dynamodb/engine';
import {
  dynamoDbLocalSkipReason,
  javaAvailable,
  startDynamoDbLocal,
} from '../../support/dynamodb-local';
import { createPlantEvent, plantBody, plantsEvent } from '../../support/events';
import { startTestStore, type TestStore } from '../../support/store';

const ENGINES: { engine: string; start: () => Promise<Engine> }[] = [
  { engine: 'dynalite', start: () => startEngine() },
  ...(javaAvailable ? [{ engine: 'DynamoDB Local', start: startDynamoDbLocal }] : []),
];
if (!javaAvailable) it.skip(`DynamoDB Local (${dynamoDbLocalSkipReason})`, () => undefined);

const MIN = '-9223372036854775808';
const MAX = '9223372036854775807';
type Page = { plants: { id: bigint; name: string; tag?: string }[]; next?: string };

function service(store: TestStore, tableName: string = PLANTS_TABLE.localName) {
  const deps = { plants: store.plants, tableName };
  const create = makeCreatePlantHandler(deps);
  const get = makeGetPlantHandler(deps);
  const list = makeListPlantsHandler(deps);
  const put = makeUpdatePlantHandler(deps);
  const patch = makePatchPlantHandler(deps);
  const one = (method: 'GET' | 'PUT' | 'PATCH', id: string, body?: string) =>
    plantsEvent({ method, route: '/plants/{id}', pathParameters: { id }, body });
  return {
    create: (id: string, name: string, tag?: string) =>
      create(createPlantEvent({ body: plantBody(id, { name, tag }) })),
    get: (id: string) => get(one('GET', id)),
    put: (id: string, body: string) => put(one('PUT', id, body)),
    patch: (id: string, body: string) => patch(one('PATCH', id, body)),
    list: (query: Record<string, string>) =>
      list(plantsEvent({ method: 'GET', route: '/plants', query })),
  };
}

/** Every id of `tag`'s walk at `limit` a page, read exactly, and the number of pages. */
async function walk(ops: ReturnType<typeof service>, tag: string, limit: number) {
  const ids: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const answer = await ops.list({ tag, limit: String(limit), ...(cursor ? { cursor } : {}) });
    expect(answer.statusCode).toBe(200);
    const page = parseJson(answer.body ?? '') as unknown as Page;
    expect(page.plants.length).toBeLessThanOrEqual(limit);
    for (const plant of page.plants) expect(plant.tag).toBe(tag);
    ids.push(...page.plants.map((plant) => String(plant.id)));
    cursor = page.next;
    pages++;
  } while (cursor !== undefined);
  return { ids, pages };
}

describe.each(ENGINES)('on $engine', ({ start }) => {
  let store: TestStore;
  let ops: ReturnType<typeof service>;
  beforeAll(async () => {
    store = await startTestStore(start);
    ops = service(store);
  }, 300_000);
  afterAll(async () => {
    await store?.close();
  });
  /** Sets attributes of the item under `id` in the table, as no request of the API would. */
  const setDirectly = (id: bigint, attributes: Record<string, unknown>) => {
    const names = Object.keys(attributes);
    return store.plants.send(
      new UpdateCommand({
        TableName: PLANTS_TABLE.localName,
        Key: { id },
        UpdateExpression: `SET ${names.map((_, n) => `#a${n} = :a${n}`).join(', ')}`,
        ExpressionAttributeNames: Object.fromEntries(names.map((name, n) => [`#a${n}`, name])),
        ExpressionAttributeValues: Object.fromEntries(
          names.map((name, n) => [`:a${n}`, attributes[name]]),
        ),
      }),
    );
  };

  it('one tag’s plants only, in id order, the int64 limits exact, in one Query per page', async () => {
    const aroids = [MAX, '9007199254740993', '9007199254740992', '0', '-1', MIN];
    for (const id of aroids)
      expect((await ops.create(id, `a ${id}`, 'aroid')).statusCode).toBe(200);
    await ops.create('5', 'Fern', 'fern');
    await ops.create('6', 'Untagged');
    store.requests.length = 0;
    const answer = await ops.list({ tag: 'aroid', limit: '100' });
    expect(store.requests).toEqual(['QueryCommand']);
    // Ascending by number: the text of every id, as the engine stored it.
    expect(answer.body).toBe(
      `{"plants":[${[...aroids]
        .reverse()
        .map((id) => `{"id":${id},"name":"a ${id}","tag":"aroid"}`)
        .join(',')}]}`,
    );
    expect((await ops.list({ tag: 'fern' })).body).toBe(
      '{"plants":[{"id":5,"name":"Fern","tag":"fern"}]}',
    );
    expect((await ops.list({ tag: 'none-such' })).body).toBe('{"plants":[]}');
  });

  it('a walk of 2 a page crosses pages and returns each plant once; another tag’s cursor is 400', async () => {
    const ids = Array.from({ length: 7 }, (_, n) => String(1000 + n));
    for (const id of ids) await ops.create(id, 'p', 'paged');
    const { ids: walked, pages } = await walk(ops, 'paged', 2);
    expect(walked).toEqual(ids);
    expect(pages).toBeGreaterThanOrEqual(4);
    const first = parseJson((await ops.list({ tag: 'paged', limit: '2' })).body ?? '') as Page;
    expect(first.next).toBeDefined();
    expect(await ops.list({ tag: 'aroid', cursor: first.next! })).toMatchObject({
      statusCode: 400,
    });
    expect(await ops.list({ cursor: first.next! })).toMatchObject({ statusCode: 400 });
  });

  it('a plant marked deleted that kept its tag (a tombstone has none) is skipped', async () => {
    await ops.create('2000', 'Kept', 'marked');
    await ops.create('2001', 'Going', 'marked');
    await setDirectly(2001n, { deletedAt: '2026-01-01T00:00:00.000Z' });
    const { ids } = await walk(ops, 'marked', 1);
    expect(ids).toEqual(['2000']);
  });

  it('a tag removed by PATCH or changed by PUT leaves the list; the new tag lists it', async () => {
    await ops.create('3000', 'A', 'moving');
    await ops.create('3001', 'B', 'moving');
    expect((await ops.patch('3000', '{"tag":null}')).statusCode).toBe(200);
    expect((await ops.put('3001', '{"name":"B","tag":"moved"}')).statusCode).toBe(200);
    expect((await walk(ops, 'moving', 10)).ids).toEqual([]);
    expect((await walk(ops, 'moved', 10)).ids).toEqual(['3001']);
  });

  it('a plant stored before the limits, its tag as long as the index takes, is listed by it', async () => {
    const long = 'x'.repeat(2_046) + 'é';
    expect(Buffer.byteLength(long)).toBe(2_048);
    await setDirectly(5000n, { name: 'Old', tag: long, version: 1 });
    expect((await walk(ops, long, 10)).ids).toEqual(['5000']);
    expect(await ops.list({ tag: `${long}x` })).toMatchObject({ statusCode: 400 });
  });

  it('an empty tag is stored and read as ever (an index cannot key on it): in no tag list', async () => {
    expect(await ops.create('4000', 'Blank', '')).toMatchObject({
      statusCode: 200,
      body: '{"name":"Blank","tag":""}',
    });
    expect((await ops.get('4000')).body).toBe('{"id":4000,"name":"Blank","tag":""}');
    expect((await ops.patch('4000', '{"tag":"filled"}')).statusCode).toBe(200);
    expect((await walk(ops, 'filled', 10)).ids).toEqual(['4000']);
    expect(await ops.put('4000', '{"name":"Blank","tag":""}')).toMatchObject({
      statusCode: 200,
      body: '{"id":4000,"name":"Blank","tag":""}',
    });
    expect((await walk(ops, 'filled', 10)).ids).toEqual([]);
    expect((await ops.create('4000', 'Blank', '')).statusCode).toBe(200);
  });
});

/**
 * A plant 1.1.0 stored with an empty tag, in a table that gets the index afterwards: DynamoDB then
 * refuses any write to the item that leaves the empty tag in place (DynamoDB Local, as AWS). A
 * change or a delete that does not name the tag stores it as its marker in the same write.
 */
(javaAvailable ? describe : describe.skip)(
  'on DynamoDB Local, a 1.1.0 item with an empty tag',
  () => {
    let store: TestStore;
    const TABLE = 'plants-released';
    beforeAll(async () => {
      store = await startTestStore(startDynamoDbLocal);
      const raw = new DynamoDBClient(store.engine.clientConfig);
      await raw.send(
        new CreateTableCommand({
          TableName: TABLE,
          BillingMode: 'PAY_PER_REQUEST',
          AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'N' }],
          KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
        }),
      );
      for (const id of ['1', '2', '3']) {
        await raw.send(
          new PutItemCommand({
            TableName: TABLE,
            Item: { id: { N: id }, name: { S: `blank ${id}` }, tag: { S: '' } },
          }),
        );
      }
      const { partitionKey, sortKey } = PLANTS_BY_TAG_INDEX;
      await raw.send(
        new UpdateTableCommand({
          TableName: TABLE,
          AttributeDefinitions: [
            { AttributeName: 'id', AttributeType: 'N' },
            { AttributeName: partitionKey.name, AttributeType: partitionKey.type },
          ],
          GlobalSecondaryIndexUpdates: [
            {
              Create: {
                IndexName: PLANTS_BY_TAG_INDEX.name,
                KeySchema: [
                  { AttributeName: partitionKey.name, KeyType: 'HASH' },
                  { AttributeName: sortKey.name, KeyType: 'RANGE' },
                ],
                Projection: { ProjectionType: 'ALL' },
              },
            },
          ],
        }),
      );
      const { Table } = await raw.send(new DescribeTableCommand({ TableName: TABLE }));
      expect(Table?.GlobalSecondaryIndexes?.map((i) => i.IndexName)).toEqual(['byTag']);
      raw.destroy();
    }, 300_000);
    afterAll(async () => {
      await store?.close();
    });

    it('PATCH of its name, PUT keeping it empty and DELETE answer as for any plant; GET still says ""', async () => {
      const ops = service(store, TABLE);
      expect(await ops.patch('1', '{"name":"renamed"}')).toMatchObject({
        statusCode: 200,
        body: '{"id":1,"name":"renamed","tag":""}',
      });
      expect((await ops.get('1')).body).toBe('{"id":1,"name":"renamed","tag":""}');
      expect(await ops.put('2', '{"name":"kept","tag":""}')).toMatchObject({
        statusCode: 200,
        body: '{"id":2,"name":"kept","tag":""}',
      });
      const remove = makeDeletePlantHandler({ plants: store.plants, tableName: TABLE });
      expect(
        await remove(
          plantsEvent({ method: 'DELETE', route: '/plants/{id}', pathParameters: { id: '3' } }),
        ),
      ).toMatchObject({ statusCode: 204 });
      expect((await ops.get('3')).statusCode).toBe(404);
    });
  },
);
