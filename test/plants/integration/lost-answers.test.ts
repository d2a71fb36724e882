/**
 * A write whose answer was lost, on real engines through a real socket: the client's connections
 * go to a proxy (`engineProxy`) which passes the write on, reads the engine's answer, and closes
 * the connection instead of passing it on (or closes it before passing the write on: a try not
 * made; or answers DynamoDB's 500). The write is sent once (`sentOnce`): the item read afterwards
 * says what it earned. Made and not written over since: 204 for a delete, 200 with the new
 * version for a change. A create knows its plant by its id, changed or deleted since (200), and
 * is put again when not made. A change not made is sent again with a single `If-Match` the item
 * still meets; else it is 503, never a 404, 409 or 412 for a write that may have been made, and
 * never a write made twice.
 */
import type { TestStore } from '../../support/store';
import { useEngineProxy } from '../../support/engine-proxy';
import { realEngines, usePlantStore, type PlantOperations } from '../../support/plant-operations';

describe.each(realEngines())('on $engine', ({ start }) => {
  let store: TestStore;
  let ops: PlantOperations;
  usePlantStore(start, (s, o) => void ([store, ops] = [s, o]));

  const via = useEngineProxy(() => store);
  const sent = (operation: string) => via.proxy.seen.filter((seen) => seen === operation).length;

  it('a DELETE whose answer was lost answers 204, not 404', async () => {
    await ops.create('9007199254740993', 'Aloe');
    via.proxy.next('UpdateItem', { kind: 'drop' });
    const answer = await via.ops().remove('9007199254740993');
    expect(via.proxy.seen).toEqual(['UpdateItem', 'GetItem']);
    expect(answer.statusCode).toBe(204);
    expect((await ops.get('9007199254740993')).statusCode).toBe(404);
    // A delete made again by another request still finds no plant.
    expect((await ops.remove('9007199254740993')).statusCode).toBe(404);
  });

  it('a DELETE whose answer was lost leaves the plant created since, and answers 204', async () => {
    await ops.create('-9223372036854775808', 'Aloe');
    via.proxy.next('UpdateItem', {
      kind: 'drop',
      meanwhile: () => ops.create('-9223372036854775808', 'Aloe again'),
    });
    const answer = await via.ops().remove('-9223372036854775808');
    expect(sent('UpdateItem')).toBe(1);
    expect(answer.statusCode).toBe(204);
    // The plant created in between is the next life (versions 1, 2 deleted, 3), and stays.
    expect(await ops.get('-9223372036854775808')).toMatchObject({
      statusCode: 200,
      headers: { etag: '"3"' },
      body: '{"id":-9223372036854775808,"name":"Aloe again"}',
    });
    // A delete of it by another request deletes it.
    expect((await ops.remove('-9223372036854775808')).statusCode).toBe(204);
  });

  it('a PUT with If-Match whose answer was lost answers 200 and the new ETag, not 412', async () => {
    await ops.create('9007199254740995', 'Aloe', 'succulent');
    via.proxy.next('UpdateItem', { kind: 'drop' });
    const answer = await via
      .ops()
      .put('9007199254740995', '{"name":"Aloe vera"}', { 'if-match': '"1"' });
    expect(via.proxy.seen).toEqual(['UpdateItem', 'GetItem']);
    expect(answer).toMatchObject({
      statusCode: 200,
      headers: { etag: '"2"' },
      body: '{"id":9007199254740995,"name":"Aloe vera"}',
    });
    expect((await ops.get('9007199254740995')).headers).toMatchObject({ etag: '"2"' });
    // The ETag it answered is the plant's: another editor's If-Match "1" is refused.
    expect(await ops.patch('9007199254740995', '{"tag":"x"}', { 'if-match': '"1"' })).toMatchObject(
      { statusCode: 412 },
    );
  });

  it('a PATCH whose answer was lost answers the change it made', async () => {
    await ops.create('17', 'Fern', 'pteridophyte');
    via.proxy.next('UpdateItem', { kind: 'drop' });
    const answer = await via.ops().patch('17', '{"tag":null}');
    expect(answer).toMatchObject({
      statusCode: 200,
      headers: { etag: '"2"' },
      body: '{"id":17,"name":"Fern"}',
    });
  });

  it('a POST whose answer was lost answers 200, and is not put again', async () => {
    via.proxy.next('PutItem', { kind: 'drop' });
    expect((await via.ops().create('19', 'Moss')).statusCode).toBe(200);
    expect(via.proxy.seen).toEqual(['PutItem', 'GetItem']);
    expect(await ops.get('19')).toMatchObject({ headers: { etag: '"1"' } });
  });

  it('a POST whose try was not made is put again', async () => {
    via.proxy.next('PutItem', { kind: 'unsent' });
    expect((await via.ops().create('20', 'Moss')).statusCode).toBe(200);
    expect(via.proxy.seen).toEqual(['PutItem', 'GetItem', 'PutItem']);
    expect(await ops.get('20')).toMatchObject({ statusCode: 200, headers: { etag: '"1"' } });
  });

  it('a POST whose answer was lost and whose plant was deleted since answers 200, not made again', async () => {
    via.proxy.next('PutItem', { kind: 'drop', meanwhile: () => ops.remove('21') });
    expect((await via.ops().create('21', 'Aloe')).statusCode).toBe(200);
    expect(via.proxy.seen).toEqual(['PutItem', 'GetItem']);
    expect((await ops.get('21')).statusCode).toBe(404);
  });

  it('a POST whose answer was lost and whose plant was changed since answers 200, not 409', async () => {
    via.proxy.next('PutItem', { kind: 'drop', meanwhile: () => ops.patch('22', '{"tag":"x"}') });
    expect((await via.ops().create('22', 'Rose')).statusCode).toBe(200);
    expect((await ops.get('22')).body).toBe('{"id":22,"name":"Rose","tag":"x"}');
  });

  it('a POST whose answer was lost, its plant deleted and the id created again since: 200, the new plant stays', async () => {
    via.proxy.next('PutItem', {
      kind: 'drop',
      meanwhile: async () => [await ops.remove('29'), await ops.create('29', 'Other')],
    });
    expect((await via.ops().create('29', 'Aloe')).statusCode).toBe(200);
    expect(sent('PutItem')).toBe(1);
    expect(await ops.get('29')).toMatchObject({
      headers: { etag: '"3"' },
      body: '{"id":29,"name":"Other"}',
    });
  });

  it('a POST whose answer was lost on an id deleted before is put over its tombstone', async () => {
    await ops.create('28', 'Moss');
    expect((await ops.remove('28')).statusCode).toBe(204);
    via.proxy.next('PutItem', { kind: 'drop' });
    expect((await via.ops().create('28', 'Moss again')).statusCode).toBe(200);
    expect(via.proxy.seen).toEqual(['PutItem', 'GetItem', 'PutItem']);
    expect(await ops.get('28')).toMatchObject({
      headers: { etag: '"3"' },
      body: '{"id":28,"name":"Moss again"}',
    });
  });

  it('a POST whose answer was lost on the id of a plant changed many times, then deleted, is put over its tombstone', async () => {
    await ops.create('34', 'Moss');
    for (const tag of ['a', 'b', 'c', 'd']) await ops.patch('34', `{"tag":"${tag}"}`);
    expect((await ops.remove('34')).statusCode).toBe(204);
    via.proxy.next('PutItem', { kind: 'drop' });
    expect((await via.ops().create('34', 'Moss again')).statusCode).toBe(200);
    expect(via.proxy.seen).toEqual(['PutItem', 'GetItem', 'PutItem']);
    expect(await ops.get('34')).toMatchObject({ headers: { etag: '"7"' } });
  });

  it('a POST another create beat, the answer lost, is 409 by the members it found', async () => {
    via.proxy.next('PutItem', { kind: 'unsent', meanwhile: () => ops.create('30', 'Fern') });
    expect((await via.ops().create('30', 'Rose')).statusCode).toBe(409);
    expect((await ops.get('30')).body).toBe('{"id":30,"name":"Fern"}');
  });

  it('a PUT with If-Match whose answer was lost and that was written over is 503, not 412', async () => {
    await ops.create('23', 'Fern');
    via.proxy.next('UpdateItem', { kind: 'drop', meanwhile: () => ops.patch('23', '{"tag":"x"}') });
    const answer = await via.ops().put('23', '{"name":"Fern 2"}', { 'if-match': '"1"' });
    expect(answer.statusCode).toBe(503);
    expect(await ops.get('23')).toMatchObject({ headers: { etag: '"3"' } });
  });

  it('a PUT whose answer was lost is not made again over the change made since', async () => {
    await ops.create('24', 'Ivy');
    via.proxy.next('UpdateItem', { kind: 'drop', meanwhile: () => ops.patch('24', '{"tag":"x"}') });
    const answer = await via.ops().put('24', '{"name":"Ivy 2"}');
    expect(answer.statusCode).toBe(503);
    expect(sent('UpdateItem')).toBe(1);
    // The PUT made version 2, the PATCH 3: nothing after.
    expect(await ops.get('24')).toMatchObject({
      headers: { etag: '"3"' },
      body: '{"id":24,"name":"Ivy 2","tag":"x"}',
    });
  });

  it('a PATCH whose answer was lost leaves the plant created since alone', async () => {
    await ops.create('25', 'Palm', 'tree');
    via.proxy.next('UpdateItem', {
      kind: 'drop',
      meanwhile: async () => [await ops.remove('25'), await ops.create('25', 'Palm', 'tree')],
    });
    const answer = await via.ops().patch('25', '{"tag":null}');
    expect(answer.statusCode).toBe(503);
    expect(await ops.get('25')).toMatchObject({
      headers: { etag: '"4"' },
      body: '{"id":25,"name":"Palm","tag":"tree"}',
    });
  });

  it('a DELETE whose answer was lost, after two deletes and creates since, is 503 and deletes nothing more', async () => {
    await ops.create('26', 'Cactus');
    via.proxy.next('UpdateItem', {
      kind: 'drop',
      meanwhile: async () => {
        await ops.create('26', 'Cactus 2');
        await ops.remove('26');
        await ops.create('26', 'Cactus 3');
      },
    });
    const answer = await via.ops().remove('26');
    expect(answer.statusCode).toBe(503);
    expect(await ops.get('26')).toMatchObject({ statusCode: 200, headers: { etag: '"5"' } });
  });

  it('a change that changes nothing, its answer lost, answers the plant unchanged', async () => {
    await ops.create('35', 'Moss', 'x');
    via.proxy.next('UpdateItem', { kind: 'drop' });
    const answer = await via.ops().put('35', '{"name":"Moss","tag":"x"}', { 'if-match': '"1"' });
    expect(answer).toMatchObject({ statusCode: 200, headers: { etag: '"1"' } });
  });

  it('a change with If-Match whose try was not made is sent again', async () => {
    await ops.create('31', 'Moss');
    via.proxy.next('UpdateItem', { kind: 'unsent' });
    const answer = await via.ops().patch('31', '{"tag":"x"}', { 'if-match': '"1"' });
    expect(answer).toMatchObject({ statusCode: 200, headers: { etag: '"2"' } });
    expect(via.proxy.seen).toEqual(['UpdateItem', 'GetItem', 'UpdateItem']);
  });

  it('a 500 from the store: a change made answers 200; a create not made is put again', async () => {
    await ops.create('32', 'Moss');
    via.proxy.next('UpdateItem', { kind: 'drop', serverError: true });
    const changed = await via.ops().patch('32', '{"tag":"x"}');
    expect(changed).toMatchObject({ statusCode: 200, headers: { etag: '"2"' } });
    via.proxy.next('PutItem', { kind: 'unsent', serverError: true });
    expect((await via.ops().create('33', 'Fern')).statusCode).toBe(200);
    expect(via.proxy.seen).toEqual(['UpdateItem', 'GetItem', 'PutItem', 'GetItem', 'PutItem']);
  });

  it('a change whose try was not made is 503, and changes nothing', async () => {
    await ops.create('27', 'Moss');
    via.proxy.next('UpdateItem', { kind: 'unsent' });
    const answer = await via.ops().patch('27', '{"tag":"x"}');
    expect(answer).toMatchObject({
      statusCode: 503,
      headers: { 'retry-after': expect.any(String) },
    });
    expect(await ops.get('27')).toMatchObject({ headers: { etag: '"1"' } });
  });

  it('a write that finds another write there is still refused', async () => {
    await ops.create('18', 'Ivy');
    expect((await ops.put('18', '{"name":"English ivy"}')).statusCode).toBe(200);
    const refused = await via.ops().put('18', '{"name":"x"}', { 'if-match': '"1"' });
    expect(refused).toMatchObject({ statusCode: 412, headers: { etag: '"2"' } });
    expect((await ops.remove('18')).statusCode).toBe(204);
    const gone = await via.ops().remove('18');
    expect(gone.statusCode).toBe(404);
  });
});
