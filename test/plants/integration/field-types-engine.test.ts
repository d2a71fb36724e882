/**
 * A number field and a boolean field, each added as one entry of `PLANT_FIELDS` (here by mocking
 * lambda/plants/fields.ts: the product's fields are strings), through the real handlers against
 * real engines (dynalite, and AWS's DynamoDB Local where Java is available): create and its
 * answer, the DynamoDB item, GET, the list, a retry's comparison, PUT, PATCH and the webhook
 * body, each derived from the entry with no other edit. Decimals are exact: the request's literal
 * is judged, the item holds the decimal written, every answer writes it back as sent.
 */
import { GetItemCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { PLANTS_TABLE } from '../../../lambda/aws/tables';
import { takenMessage } from '../../../lambda/create-plant/create-plant';
import { makeCreatePlantHandler } from '../../../lambda/create-plant/handler';
import { newPlantBody } from '../../../lambda/webhook/message';
import { createPlantEvent } from '../../support/events';
import { realEngines, usePlantStore, type PlantOperations } from '../../support/plant-operations';
import type { TestStore } from '../../support/store';
import type { PlantField } from '../../../lambda/plants/field-types';

jest.mock('../../../lambda/plants/fields', () => {
  const actual = jest.requireActual<typeof import('../../../lambda/plants/fields')>(
    '../../../lambda/plants/fields',
  );
  const price: PlantField = {
    type: 'number',
    required: false,
    minimum: 0,
    maximum: 1_000_000,
    decimals: 2,
    description: 'The price of the plant',
    example: 19.99,
  };
  const indoor: PlantField = {
    type: 'boolean',
    required: false,
    description: 'Whether the plant lives indoors',
    example: true,
  };
  return { PLANT_FIELDS: { ...actual.PLANT_FIELDS, price, indoor } };
});

const PRICE_RULE = 'price: must be a number from 0 to 1000000 with at most 2 decimals';

describe.each(realEngines())('on $engine', ({ start }) => {
  let store: TestStore;
  let ops: PlantOperations;
  let raw: DynamoDBClient;
  usePlantStore(start, (s, o) => {
    [store, ops] = [s, o];
    raw = new DynamoDBClient(s.engine.clientConfig);
  });
  afterAll(() => raw?.destroy());

  const create = async (body: string) => {
    const handler = makeCreatePlantHandler({
      plants: store.plants,
      tableName: PLANTS_TABLE.localName,
    });
    const answer = await handler(createPlantEvent({ body }));
    return { status: answer.statusCode, body: answer.body };
  };
  const item = async (id: string) => {
    const { Item } = await raw.send(
      new GetItemCommand({
        TableName: PLANTS_TABLE.localName,
        Key: { id: { N: id } },
        ConsistentRead: true,
      }),
    );
    return Item!;
  };

  it('creates, stores, reads, lists and delivers 19.99 and true exactly', async () => {
    const body = '{"id":9007199254740993,"name":"Monstera","price":19.99,"indoor":true}';
    const plant = '"name":"Monstera","price":19.99,"indoor":true';
    expect(await create(body)).toEqual({ status: 200, body: `{${plant}}` });
    const stored = await item('9007199254740993');
    expect(stored).toMatchObject({ price: { N: '19.99' }, indoor: { BOOL: true } });
    const got = await ops.get('9007199254740993');
    expect(got).toMatchObject({ statusCode: 200, body: `{"id":9007199254740993,${plant}}` });
    const listed = await ops.list();
    expect(listed.body).toBe(`{"plants":[{"id":9007199254740993,${plant}}]}`);
    expect(newPlantBody(stored).body).toBe(`{"id":9007199254740993,${plant}}`);
  });

  it('a retry with the same decimal written otherwise is the same plant; another is a 409', async () => {
    const body = (price: string, indoor = 'true') =>
      `{"id":9007199254740993,"name":"Monstera","price":${price},"indoor":${indoor}}`;
    for (const same of ['19.990', '1999e-2', '0.1999E2']) {
      expect(await create(body(same))).toMatchObject({ status: 200 });
    }
    const taken = { status: 409, body: expect.stringContaining(takenMessage(9007199254740993n)) };
    expect(await create(body('19.98'))).toEqual(taken);
    expect(await create(body('19.99', 'false'))).toEqual(taken);
    expect(await create('{"id":9007199254740993,"name":"Monstera","indoor":true}')).toEqual(taken);
    store.requests.length = 0;
    expect(await create(body('19.99'))).toMatchObject({ status: 200 });
  });

  // Each: its literal, and the decimal the item and every answer hold.
  it.each([
    ['0.1', '0.1'],
    ['0.29', '0.29'],
    ['0.3', '0.3'],
    ['1.1', '1.1'],
    ['999999.99', '999999.99'],
    ['1000000', '1000000'],
    ['20.00', '20'],
    ['-0.0', '0'],
    ['0', '0'],
    ['4.35', '4.35'],
    ['123456.78', '123456.78'],
  ])('%s is stored and answered as %s', async (literal, decimal) => {
    const id = String(1000 + Math.floor(Math.random() * 1e9));
    expect(await create(`{"id":${id},"name":"p","price":${literal}}`)).toEqual({
      status: 200,
      body: `{"name":"p","price":${decimal}}`,
    });
    expect((await item(id)).price).toEqual({ N: decimal });
    expect((await ops.get(id)).body).toBe(`{"id":${id},"name":"p","price":${decimal}}`);
    expect(newPlantBody(await item(id)).body).toBe(`{"id":${id},"name":"p","price":${decimal}}`);
  });

  it.each([
    // 0.1 + 0.2 as a float64 prints: more decimals than two, never rounded to 0.3.
    [String(0.1 + 0.2), PRICE_RULE],
    ['19.990000000000000001', PRICE_RULE],
    ['1.005', PRICE_RULE],
    ['-0.01', PRICE_RULE],
    ['1000000.01', PRICE_RULE],
    ['1e400', PRICE_RULE],
    ['1e-400', PRICE_RULE],
    ['"19.99"', PRICE_RULE],
    ['true', PRICE_RULE],
  ])('price %s is a 400 that stores nothing', async (literal, message) => {
    const answer = await create(`{"id":77,"name":"p","price":${literal}}`);
    expect(answer).toEqual({ status: 400, body: `{"error":400,"message":"${message}"}` });
    expect(store.requests).toEqual([]);
  });

  it.each(['1', '"true"', '0'])('indoor %s is a 400', async (literal) => {
    expect(await create(`{"id":78,"name":"p","indoor":${literal}}`)).toEqual({
      status: 400,
      body: '{"error":400,"message":"indoor: must be true or false"}',
    });
  });

  it('PATCH sets a decimal and a boolean, null removes them; PUT replaces every member', async () => {
    expect((await create('{"id":30,"name":"Fern","price":5}')).status).toBe(200);
    const patched = await ops.patch('30', '{"price":0.1,"indoor":false}');
    expect(patched).toMatchObject({
      statusCode: 200,
      body: '{"id":30,"name":"Fern","price":0.1,"indoor":false}',
    });
    expect(await item('30')).toMatchObject({ price: { N: '0.1' }, indoor: { BOOL: false } });
    expect((await ops.patch('30', '{"price":0.30000000000000004}')).body).toBe(
      `{"error":400,"message":"${PRICE_RULE}"}`,
    );
    expect((await ops.patch('30', '{"price":null}')).body).toBe(
      '{"id":30,"name":"Fern","indoor":false}',
    );
    const replaced = await ops.put('30', '{"name":"Fern","price":1234.5}');
    expect(replaced.body).toBe('{"id":30,"name":"Fern","price":1234.5}');
    expect(await item('30')).not.toHaveProperty('indoor');
    expect((await item('30')).price).toEqual({ N: '1234.5' });
  });
});
