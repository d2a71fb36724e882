/**
 * PUT and PATCH /plants/{id}, versions and conditional requests, against real engines (dynalite,
 * and AWS's DynamoDB Local where Java is available), through the real handlers: what a change
 * stores and answers, 404 and 412 that change nothing, items stored before versions existed,
 * concurrent editors with and without If-Match, the deletion's tombstone and what every reader
 * and writer makes of it, and a create that meets a later incarnation's tombstone.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { plantsTable } from '../../../lambda/plants/table';
import { parseJson } from '../../../lambda/http/json';
import { PLANTS_TABLE } from '../../../lambda/aws/tables';
import type { TestStore } from '../../support/store';
import { realEngines, usePlantStore, type PlantOperations } from '../../support/plant-operations';

const ENGINES = realEngines();

describe.each(ENGINES)('on $engine', ({ start }) => {
  let store: TestStore;
  let ops: PlantOperations;
  usePlantStore(start, (s, o) => void ([store, ops] = [s, o]));

  it.each(['9223372036854775807', '-9223372036854775808', '9007199254740993'])(
    'PUT %s replaces the members in one UpdateItem, answers the plant and ETag "2", keeps createdAt',
    async (id) => {
      await ops.create(id, 'Monstera', 'aroid');
      const created = await store.readStored(id);
      store.requests.length = 0;
      const answer = await ops.put(id, '{"name":"Monstera deliciosa"}');
      expect(answer).toMatchObject({
        statusCode: 200,
        headers: { etag: '"2"' },
        body: `{"id":${id},"name":"Monstera deliciosa"}`,
      });
      expect(store.requests).toEqual(['UpdateItemCommand']);
      expect(await store.readStored(id)).toEqual({
        id,
        name: 'Monstera deliciosa',
        createdAt: created!.createdAt,
        createdBy: created!.createdBy,
        createId: created!.createId,
        version: '2',
        updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        updatedBy: 'tok_example',
        writeId: expect.stringMatching(/^[\w-]{16}$/),
      });
      expect((await ops.get(id)).headers).toMatchObject({ etag: '"2"' });
    },
  );

  it('PATCH merges: a string sets, null removes the tag, a member left out stays', async () => {
    await ops.create('20', 'Fern', 'pteridophyte');
    expect(await ops.patch('20', '{"name":"Boston fern"}')).toMatchObject({
      statusCode: 200,
      headers: { etag: '"2"' },
      body: '{"id":20,"name":"Boston fern","tag":"pteridophyte"}',
    });
    const removed = await ops.patch('20', '{"tag":null}', {
      'content-type': 'application/merge-patch+json',
    });
    expect(removed).toMatchObject({ statusCode: 200, headers: { etag: '"3"' } });
    expect(removed.body).toBe('{"id":20,"name":"Boston fern"}');
    // A patch that changes nothing writes nothing: no new version (and so no event).
    const before = await store.readStored('20');
    for (const patch of ['{}', '{"name":"Boston fern"}', '{"tag":null}']) {
      expect(await ops.patch('20', patch)).toMatchObject({
        statusCode: 200,
        headers: { etag: '"3"' },
        body: '{"id":20,"name":"Boston fern"}',
      });
    }
    expect(await store.readStored('20')).toEqual(before);
  });

  it('bad bodies are 400 (or 415) and change nothing', async () => {
    await ops.create('21', 'Cactus', 'succulent');
    const before = await store.readStored('21');
    const cases: [Promise<{ statusCode?: number; body?: string }>, number, string][] = [
      [ops.patch('21', '{"name":null}'), 400, 'name: must be a string'],
      [ops.put('21', '{"tag":"x"}'), 400, 'name: required'],
      [ops.put('21', '{"id":22,"name":"x"}'), 400, 'id: must equal the id in the path, 21'],
      [ops.patch('21', '{"id":null}'), 400, 'id: must be an integer'],
      [ops.patch('21', `{"tag":"${'x'.repeat(101)}"}`), 400, 'tag: must be at most 100'],
      [ops.patch('21', '{"tag":"a","tag":"b"}'), 400, 'tag'],
      [ops.patch('21', '[]'), 400, 'body: must be a JSON object'],
      [ops.put('21', '{"name":"x"}', { 'content-type': 'text/plain' }), 415, 'content-type'],
      [ops.put('21', '{"name":"x"}', { 'if-match': 'v1' }), 400, 'If-Match: must be *'],
    ];
    for (const [answer, status, message] of cases) {
      const { statusCode, body } = await answer;
      expect({ statusCode, body }).toEqual({
        statusCode: status,
        body: expect.stringContaining(message),
      });
    }
    expect(await store.readStored('21')).toEqual(before);
    expect(await ops.put('21', '{"id":21,"name":"Cactus"}')).toMatchObject({ statusCode: 200 });
  });

  it('PUT and PATCH of a missing plant are 404 and create nothing, with or without If-Match', async () => {
    for (const headers of [undefined, { 'if-match': '*' }, { 'if-match': '"1"' }]) {
      expect(await ops.put('-404', '{"name":"x"}', headers)).toMatchObject({
        statusCode: 404,
        body: '{"error":404,"message":"no plant with id -404"}',
      });
      expect((await ops.patch('-404', '{"name":"x"}', headers)).statusCode).toBe(404);
    }
    expect(await store.readStored('-404')).toBeUndefined();
  });

  it('If-Match: a version or * it names writes; another is 412 with the stored version; nothing changes', async () => {
    await ops.create('30', 'Palm');
    const refused = await ops.patch('30', '{"name":"x"}', { 'if-match': '"2", W/"1"' });
    expect(refused).toMatchObject({
      statusCode: 412,
      headers: { etag: '"1"' },
      body: '{"error":412,"message":"plant 30 is at version 1"}',
    });
    expect(await store.readStored('30')).toMatchObject({ name: 'Palm' });
    expect(await ops.patch('30', '{"name":"Areca"}', { 'if-match': '"7", "1"' })).toMatchObject({
      statusCode: 200,
      headers: { etag: '"2"' },
    });
    expect((await ops.put('30', '{"name":"x"}', { 'if-match': '"1"' })).statusCode).toBe(412);
    expect(await ops.put('30', '{"name":"Kentia"}', { 'if-match': '*' })).toMatchObject({
      statusCode: 200,
      headers: { etag: '"3"' },
    });
  });

  it('a plant stored before versions existed is version 1, with no rewrite, and changes to 2', async () => {
    await store.plants.send(
      new PutCommand({
        TableName: PLANTS_TABLE.localName,
        Item: {
          id: 40n,
          name: 'Old',
          tag: 'v1.1',
          createdAt: '2024-01-01T00:00:00.000Z',
          createdBy: 'tok_old',
        },
      }),
    );
    expect((await ops.get('40')).headers).toMatchObject({ etag: '"1"' });
    expect(await store.readStored('40')).not.toHaveProperty('version');
    expect(await ops.patch('40', '{"tag":null}', { 'if-match': '"1"' })).toMatchObject({
      statusCode: 200,
      headers: { etag: '"2"' },
      body: '{"id":40,"name":"Old"}',
    });
  });

  it('GET with If-None-Match naming the version is 304 with the ETag and no body', async () => {
    await ops.create('50', 'Ivy');
    for (const value of ['"1"', 'W/"1"', '"9", "1"', '*']) {
      const answer = await ops.get('50', { 'if-none-match': value });
      expect(answer).toEqual({ statusCode: 304, headers: { etag: '"1"' } });
    }
    expect(await ops.get('50', { 'if-none-match': '"2"' })).toMatchObject({
      statusCode: 200,
      headers: { etag: '"1"' },
      body: '{"id":50,"name":"Ivy"}',
    });
    expect((await ops.get('-50', { 'if-none-match': '*' })).statusCode).toBe(404);
  });

  it('40 concurrent PATCHes with one If-Match: exactly one 200, 39 412', async () => {
    await ops.create('60', 'Contested');
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, n) =>
        ops.patch('60', `{"name":"editor ${n}"}`, { 'if-match': '"1"' }),
      ),
    );
    const statuses = answers.map((answer) => answer.statusCode);
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 412)).toHaveLength(39);
    const winner = answers.find((answer) => answer.statusCode === 200)!;
    expect(await store.readStored('60')).toMatchObject({
      version: '2',
      name: (parseJson(winner.body!) as { name: string }).name,
    });
  });

  it('40 concurrent PATCHes without If-Match: all 200, the version rises by 40, each version once', async () => {
    await ops.create('61', 'Shared');
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, n) => ops.patch('61', `{"tag":"t${n}"}`)),
    );
    expect(answers.map((answer) => answer.statusCode)).toEqual(Array(40).fill(200));
    const etags = answers.map((answer) => (answer.headers as Record<string, string>).etag).sort();
    expect(new Set(etags).size).toBe(40);
    expect(await store.readStored('61')).toMatchObject({ version: '41' });
  });

  it('DELETE honours If-Match: 412 deletes nothing; a match deletes (one write: the tombstone)', async () => {
    await ops.create('70', 'Aloe');
    expect(await ops.remove('70', { 'if-match': '"2"' })).toMatchObject({
      statusCode: 412,
      body: '{"error":412,"message":"plant 70 is at version 1"}',
    });
    expect(await store.readStored('70')).toMatchObject({ name: 'Aloe' });
    store.requests.length = 0;
    expect(await ops.remove('70', { 'if-match': '"1"' })).toEqual({ statusCode: 204 });
    expect(store.requests).toEqual(['UpdateItemCommand']);
    expect(await store.readStored('70')).toMatchObject({
      version: '2',
      deletedAt: expect.any(String),
    });
    expect((await ops.remove('70', { 'if-match': '"1"' })).statusCode).toBe(404);
    expect((await ops.remove('70', { 'if-match': '"2"' })).statusCode).toBe(404);
  });

  it('a tombstone: absent for every reader and writer (a DELETE of it is 404 and leaves it), a create takes its id', async () => {
    await ops.create('80', 'Deleted', 'ghost');
    await ops.remove('80');
    const tombstone = await store.readStored('80');
    expect(tombstone).toMatchObject({ version: '2', deletedAt: expect.any(String) });
    expect(tombstone).not.toHaveProperty('tag');
    expect((await ops.get('80')).statusCode).toBe(404);
    expect((await ops.put('80', '{"name":"x"}')).statusCode).toBe(404);
    expect((await ops.patch('80', '{"name":"x"}', { 'if-match': '*' })).statusCode).toBe(404);
    expect(parseJson((await ops.list({ limit: '100' })).body!)).toEqual({
      plants: expect.not.arrayContaining([expect.objectContaining({ id: 80n })]),
    });
    expect(parseJson((await ops.list({ tag: 'ghost' })).body!)).toEqual({ plants: [] });
    expect((await ops.remove('80')).statusCode).toBe(404);
    expect((await ops.remove('80', { 'if-match': '*' })).statusCode).toBe(404);
    expect(await store.readStored('80')).toEqual(tombstone);

    await ops.create('81', 'Deleted');
    await ops.remove('81');
    const { writeId: deletedBy, createId: firstLife } = (await store.readStored('81'))!;
    expect((await ops.create('81', 'Reborn')).statusCode).toBe(200);
    // The new plant continues the tombstone's versions: no ETag of the id repeats. It keeps the
    // delete's write id (a repeat of that delete leaves it alone).
    expect(await store.readStored('81')).toEqual({
      id: '81',
      name: 'Reborn',
      createdAt: expect.any(String),
      createdBy: 'tok_example',
      version: '3',
      firstVersion: '3',
      previousWriteId: deletedBy,
      createId: expect.stringMatching(/^[\w-]{16}$/),
      previousCreateId: firstLife,
    });
    expect((await ops.get('81')).headers).toMatchObject({ etag: '"3"' });
    // Its tombstone keeps its own delete's id, and the ids of its create and the one before.
    expect((await ops.remove('81')).statusCode).toBe(204);
    expect(Object.keys((await store.readStored('81'))!).sort()).toEqual([
      'createId',
      'createdAt',
      'deletedAt',
      'id',
      'previousCreateId',
      'version',
      'writeId',
    ]);
  });

  it('a create whose clock was read before a later incarnation was created and deleted is stored after that incarnation', async () => {
    const table = plantsTable(store.plants, PLANTS_TABLE.localName);
    // The later incarnation: created (and deleted) at a time this create's clock had not reached.
    const later = new Date(Date.now() + 60_000).toISOString();
    await table.putNew({ id: 82n, name: 'Later' }, { createdAt: later, createdBy: 'tok_a' });
    expect(await table.delete(82n, { at: later })).toMatchObject({ version: 2 });
    const slow = { createdAt: new Date(Date.now() - 6_000).toISOString(), createdBy: 'tok_b' };
    store.requests.length = 0;
    expect(await table.putNew({ id: 82n, name: 'Early' }, slow)).toBeUndefined();
    // Refused by the tombstone (read from the refusal, or by a GetItem on dynalite), then put after it.
    expect(store.requests.filter((r) => r !== 'GetItemCommand')).toEqual([
      'PutItemCommand',
      'PutItemCommand',
    ]);
    const stored = {
      id: '82',
      name: 'Early',
      createdBy: 'tok_b',
      version: '3',
      firstVersion: '3',
      previousWriteId: expect.any(String),
      createId: expect.any(String),
      previousCreateId: expect.any(String),
    };
    const after = new Date(Date.parse(later) + 1).toISOString();
    expect(await store.readStored('82')).toEqual({ ...stored, createdAt: after });
    // The same create again (a retry): the plant is there, answered as stored, nothing written.
    store.requests.length = 0;
    expect(await table.putNew({ id: 82n, name: 'Early' }, slow)).toEqual({ name: 'Early' });
    expect(store.requests.filter((r) => r !== 'GetItemCommand')).toEqual(['PutItemCommand']);
    expect(await store.readStored('82')).toEqual({ ...stored, createdAt: after });
    // Over an older incarnation's tombstone a create keeps the time it was given.
    await table.delete(82n, { at: after });
    const next = { createdAt: new Date(Date.parse(later) + 5).toISOString(), createdBy: 'tok_c' };
    expect(await table.putNew({ id: 82n, name: 'Next' }, next)).toBeUndefined();
    expect(await store.readStored('82')).toEqual({
      id: '82',
      name: 'Next',
      ...next,
      version: '5',
      firstVersion: '5',
      previousWriteId: expect.any(String),
      createId: expect.any(String),
      previousCreateId: expect.any(String),
    });
  });

  it('a create that repeats a plant since changed is judged against the stored plant', async () => {
    await ops.create('90', 'Basil', 'herb');
    await ops.patch('90', '{"name":"Thai basil"}');
    expect((await ops.create('90', 'Basil', 'herb')).statusCode).toBe(409);
    expect((await ops.create('90', 'Thai basil', 'herb')).statusCode).toBe(200);
    expect(await store.readStored('90')).toMatchObject({ name: 'Thai basil', version: '2' });
  });
});
