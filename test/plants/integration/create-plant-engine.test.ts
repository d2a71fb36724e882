/**
 * The create-plant handler against real engines over HTTP — dynalite, and AWS's DynamoDB Local
 * where Java is available — with no SDK mocks: exact ids, safe retries, conflicts, races and
 * the number of DynamoDB requests per create.
 */
import { makeCreatePlantHandler } from '../../../lambda/create-plant/handler';
import { takenMessage } from '../../../lambda/create-plant/create-plant';
import { PLANTS_TABLE } from '../../../lambda/aws/tables';
import { createPlantEvent, plantBody } from '../../support/events';
import { startEngine } from '../../../lib/local/dynamodb/engine';
import {
  dynamoDbLocalSkipReason,
  javaAvailable,
  startDynamoDbLocal,
} from '../../support/dynamodb-local';
import { startTestStore, type TestStore } from '../../support/store';

const ENGINES = [
  // dynalite returns no old item on a failed condition: a conflict costs a second read.
  {
    engine: 'dynalite',
    start: () => startEngine(),
    conflictRequests: ['PutItemCommand', 'GetItemCommand'],
  },
  // DynamoDB (and DynamoDB Local) return it with the failure: a conflict costs one request.
  ...(javaAvailable
    ? [
        {
          engine: 'DynamoDB Local',
          start: startDynamoDbLocal,
          conflictRequests: ['PutItemCommand'],
        },
      ]
    : []),
];
if (!javaAvailable) it.skip(`DynamoDB Local (${dynamoDbLocalSkipReason})`, () => undefined);

describe.each(ENGINES)('on $engine', ({ start, conflictRequests }) => {
  let store: TestStore;
  let create: (body: string) => Promise<{ statusCode?: number; body?: string }>;

  beforeAll(async () => {
    store = await startTestStore(start);
    const handler = makeCreatePlantHandler({
      plants: store.plants,
      tableName: PLANTS_TABLE.localName,
    });
    create = (body) => handler(createPlantEvent({ body }));
    // A JVM starting on a busy machine.
  }, 300_000);
  afterAll(async () => {
    await store?.close();
  });
  beforeEach(() => {
    store.requests.length = 0;
  });

  describe('create', () => {
    it('stores the plant with every digit of its id, in one request', async () => {
      const answer = await create(
        plantBody('9007199254740993', { name: 'Monstera', tag: 'aroid' }),
      );
      expect(answer).toMatchObject({ statusCode: 200, body: '{"name":"Monstera","tag":"aroid"}' });
      expect(store.requests).toEqual(['PutItemCommand']);
      expect(await store.readStored('9007199254740993')).toEqual({
        id: '9007199254740993',
        name: 'Monstera',
        tag: 'aroid',
        createdBy: 'tok_example',
        createdAt: expect.any(String),
        createId: expect.stringMatching(/^[\w-]{16}$/),
      });
    });

    it('keeps 2^53 and 2^53+1 as two plants', async () => {
      expect((await create(plantBody('9007199254740992', { name: 'even' }))).statusCode).toBe(200);
      expect((await create(plantBody('9007199254740995e0', { name: 'odd' }))).statusCode).toBe(200);
      expect(await store.readStored('9007199254740992')).toMatchObject({ name: 'even' });
      expect(await store.readStored('9007199254740995')).toMatchObject({ name: 'odd' });
    });

    it.each(['-9223372036854775808', '9223372036854775807'])(
      'stores the int64 edge %s',
      async (id) => {
        expect((await create(plantBody(id, { name: 'edge' }))).statusCode).toBe(200);
        expect(await store.readStored(id)).toMatchObject({ id, name: 'edge' });
      },
    );

    it('treats 7, 7.0 and 7e0 as one id', async () => {
      expect((await create(plantBody('7', { name: 'Ivy' }))).statusCode).toBe(200);
      expect((await create(plantBody('7.0', { name: 'Ivy' }))).statusCode).toBe(200);
      expect((await create(plantBody('0.7e1', { name: 'Oak' }))).statusCode).toBe(409);
    });

    it('stores nothing for a rejected body', async () => {
      expect((await create('{"id":8,"name":"a","tag":null}')).statusCode).toBe(400);
      expect(store.requests).toEqual([]);
      expect(await store.readStored('8')).toBeUndefined();
    });
  });

  describe('retry and conflict', () => {
    it('a retry answers 200 and rewrites nothing, in at most two requests', async () => {
      expect(
        (await create(plantBody('100', { name: 'Fern', tag: 'pteridophyte' }))).statusCode,
      ).toBe(200);
      const first = await store.readStored('100');
      store.requests.length = 0;
      const again = await create(plantBody('100', { name: 'Fern', tag: 'pteridophyte' }));
      expect(again).toMatchObject({
        statusCode: 200,
        body: '{"name":"Fern","tag":"pteridophyte"}',
      });
      expect(store.requests).toEqual(conflictRequests);
      expect(await store.readStored('100')).toEqual(first);
    });

    it.each([
      ['another name', plantBody('200', { name: 'Rose', tag: 'rosaceae' })],
      ['another tag', plantBody('200', { name: 'Palm', tag: 'rosaceae' })],
      ['no tag', plantBody('200', { name: 'Palm' })],
    ])('a taken id with %s is 409 and the stored plant is unchanged', async (_, body) => {
      await create(plantBody('200', { name: 'Palm', tag: 'arecaceae' }));
      const before = await store.readStored('200');
      store.requests.length = 0;
      const answer = await create(body);
      expect(answer.statusCode).toBe(409);
      expect(JSON.parse(answer.body ?? '')).toEqual({
        error: 409,
        message: takenMessage(200n),
      });
      expect(store.requests).toEqual(conflictRequests);
      expect(await store.readStored('200')).toEqual(before);
    });

    it('a plant stored without a tag conflicts with the same name and a tag', async () => {
      await create(plantBody('201', { name: 'Cactus' }));
      expect(
        (await create(plantBody('201', { name: 'Cactus', tag: 'succulent' }))).statusCode,
      ).toBe(409);
      expect((await create(plantBody('201', { name: 'Cactus' }))).statusCode).toBe(200);
    });
  });

  describe('races', () => {
    it('50 concurrent creates of one id with different names: exactly one wins and is stored', async () => {
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, i) => create(plantBody('300', { name: `name-${i}` }))),
      );
      const winners = answers.flatMap((answer, i) => (answer.statusCode === 200 ? [i] : []));
      expect(winners).toHaveLength(1);
      expect(answers.filter((answer) => answer.statusCode === 409)).toHaveLength(49);
      expect(await store.readStored('300')).toMatchObject({ name: `name-${winners[0]}` });
    });

    it('20 identical concurrent creates all answer 200', async () => {
      const answers = await Promise.all(
        Array.from({ length: 20 }, () => create(plantBody('301', { name: 'Same', tag: 'same' }))),
      );
      expect(answers.map((answer) => answer.statusCode)).toEqual(Array(20).fill(200));
      expect(await store.readStored('301')).toMatchObject({ name: 'Same', tag: 'same' });
    });
  });
});
