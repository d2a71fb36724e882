/**
 * What guards a plant's changes, against real engines through the real handlers: who sees what
 * (a write-only token gets 204 and the ETag, never the stored members), a change that changes
 * nothing (no version, no write), versions that never repeat across delete and re-create (also
 * with 40 racers), `If-None-Match` on writes and `If-Match` on reads (RFC 9110 section 13.2.2),
 * and the media types PUT and PATCH take.
 */
import { makePatchPlantHandler } from '../../../lambda/patch-plant/handler';
import { makeUpdatePlantHandler } from '../../../lambda/update-plant/handler';
import { PLANTS_TABLE } from '../../../lambda/aws/tables';
import { plantsEvent } from '../../support/events';
import type { TestStore } from '../../support/store';
import { makeDocumentClient } from '../../../lambda/aws/dynamodb';
import {
  plantOperations,
  realEngines,
  usePlantStore,
  type PlantOperations,
} from '../../support/plant-operations';

const WRITE_ONLY = {
  tokenId: 'tok_writer',
  name: 'writer',
  scopes: 'plants:write',
  scopesRevision: 2,
};

describe.each(realEngines())('on $engine', ({ start }) => {
  let store: TestStore;
  let ops: PlantOperations;
  usePlantStore(start, (s, o) => void ([store, ops] = [s, o]));

  /** PUT or PATCH as a token with `plants:write` alone. */
  function asWriter(method: 'PUT' | 'PATCH', id: string, body: string) {
    const deps = { plants: store.plants, tableName: PLANTS_TABLE.localName };
    const handler = (method === 'PUT' ? makeUpdatePlantHandler : makePatchPlantHandler)(deps);
    return handler(
      plantsEvent({
        method,
        route: '/plants/{id}',
        pathParameters: { id },
        body,
        context: WRITE_ONLY,
      }),
    );
  }

  describe('who sees what', () => {
    it('a write-only token’s PUT and PATCH answer 204 with the ETag and no body', async () => {
      await ops.create('100', 'Secret name', 'secret tag');
      expect(await asWriter('PATCH', '100', '{"tag":"mine"}')).toEqual({
        statusCode: 204,
        headers: { etag: '"2"' },
      });
      expect(await asWriter('PUT', '100', '{"name":"Mine"}')).toEqual({
        statusCode: 204,
        headers: { etag: '"3"' },
      });
      expect(await store.readStored('100')).toMatchObject({ name: 'Mine', version: '3' });
    });

    it('a write-only token’s PATCH {} reads nothing and changes nothing', async () => {
      await ops.create('101', 'Secret name', 'secret tag');
      const before = await store.readStored('101');
      const answer = await asWriter('PATCH', '101', '{}');
      expect(answer).toEqual({ statusCode: 204, headers: { etag: '"1"' } });
      expect(await store.readStored('101')).toEqual(before);
      // A missing plant is a 404 as for anyone (a create says as much).
      expect((await asWriter('PATCH', '-101', '{}')).statusCode).toBe(404);
    });
  });

  it('a change that changes nothing makes no version and writes nothing; a real one does', async () => {
    await ops.create('110', 'Fern', '');
    const before = await store.readStored('110');
    for (const [method, body] of [
      ['PUT', '{"name":"Fern","tag":""}'],
      ['PATCH', '{}'],
      ['PATCH', '{"tag":""}'],
      ['PATCH', '{"id":110,"name":"Fern"}'],
    ] as const) {
      const answer = await (method === 'PUT' ? ops.put : ops.patch)('110', body);
      expect(answer).toMatchObject({
        statusCode: 200,
        headers: { etag: '"1"' },
        body: '{"id":110,"name":"Fern","tag":""}',
      });
    }
    expect(await store.readStored('110')).toEqual(before);
    expect(await ops.put('110', '{"name":"Fern"}')).toMatchObject({
      statusCode: 200,
      headers: { etag: '"2"' },
      body: '{"id":110,"name":"Fern"}',
    });
  });

  describe('versions across delete and re-create', () => {
    it('a plant created again continues the versions: no ETag of its earlier life matches', async () => {
      await ops.create('120', 'First life');
      expect((await ops.get('120')).headers).toMatchObject({ etag: '"1"' });
      await ops.patch('120', '{"tag":"a"}');
      expect((await ops.remove('120')).statusCode).toBe(204);
      // The tombstone keeps the version for good: no TTL purgeAt, none of the plant's members.
      expect(await store.readStored('120')).toEqual({
        id: '120',
        version: '3',
        createdAt: expect.any(String),
        deletedAt: expect.any(String),
        writeId: expect.stringMatching(/^[\w-]{16}$/),
        createId: expect.stringMatching(/^[\w-]{16}$/),
      });
      expect((await ops.create('120', 'Second life')).statusCode).toBe(200);
      const read = await ops.get('120');
      expect(read).toMatchObject({ statusCode: 200, headers: { etag: '"4"' } });
      for (const old of ['"1"', '"2"', '"3"']) {
        expect(await ops.get('120', { 'if-none-match': old })).toMatchObject({
          statusCode: 200,
          body: '{"id":120,"name":"Second life"}',
        });
        expect(await ops.put('120', '{"name":"Lost update"}', { 'if-match': old })).toMatchObject({
          statusCode: 412,
          headers: { etag: '"4"' },
          body: '{"error":412,"message":"plant 120 is at version 4"}',
        });
        expect((await ops.remove('120', { 'if-match': old })).statusCode).toBe(412);
      }
      expect(await store.readStored('120')).toMatchObject({ name: 'Second life', version: '4' });
      expect(await ops.get('120', { 'if-none-match': '"4"' })).toEqual({
        statusCode: 304,
        headers: { etag: '"4"' },
      });
      expect((await ops.patch('120', '{"tag":"b"}', { 'if-match': '"4"' })).headers).toMatchObject({
        etag: '"5"',
      });
    });

    it('40 racers over a tombstone: one create, 39 retries answered; the versions still never repeat', async () => {
      // What is judged is the engine's atomicity, not its speed: no request times out here.
      const patient = makeDocumentClient({
        ...store.engine.clientConfig,
        requestHandler: { connectionTimeout: 30_000, requestTimeout: 60_000 },
      });
      const ops = plantOperations({ ...store, plants: patient });
      await ops.create('130', 'Before');
      await ops.remove('130');
      const same = await Promise.all(Array.from({ length: 40 }, () => ops.create('130', 'Raced')));
      expect(same.map((answer) => answer.statusCode)).toEqual(Array(40).fill(200));
      expect(await store.readStored('130')).toMatchObject({ name: 'Raced', version: '3' });

      await ops.remove('130');
      const different = await Promise.all(
        Array.from({ length: 40 }, (_, n) => ops.create('130', `racer ${n}`)),
      );
      const statuses = different.map((answer) => answer.statusCode);
      expect(statuses.filter((status) => status === 200)).toHaveLength(1);
      expect(statuses.filter((status) => status === 409)).toHaveLength(39);
      expect(await store.readStored('130')).toMatchObject({ version: '5', firstVersion: '5' });

      const editors = await Promise.all(
        Array.from({ length: 40 }, (_, n) =>
          ops.patch('130', `{"name":"editor ${n}"}`, { 'if-match': n % 2 ? '"5"' : '"1"' }),
        ),
      );
      const edited = editors.map((answer) => answer.statusCode);
      expect(edited.filter((status) => status === 200)).toHaveLength(1);
      expect(edited.filter((status) => status === 412)).toHaveLength(39);
      expect(await store.readStored('130')).toMatchObject({ version: '6' });
      patient.destroy();
    }, 300_000);
  });

  describe('preconditions (RFC 9110 section 13.2.2)', () => {
    it('PUT and PATCH with If-None-Match: * are 412 on a plant that exists, and write nothing', async () => {
      await ops.create('140', 'Taken');
      const before = await store.readStored('140');
      for (const change of [ops.put, ops.patch]) {
        expect(await change('140', '{"name":"Overwritten"}', { 'if-none-match': '*' })).toEqual({
          statusCode: 412,
          headers: { 'content-type': 'application/json', etag: '"1"' },
          body: '{"error":412,"message":"plant 140 is at version 1"}',
        });
        // A list that names the stored version (weakly), likewise; one that does not, writes.
        expect(
          (await change('140', '{"name":"Overwritten"}', { 'if-none-match': '"7", W/"1"' }))
            .statusCode,
        ).toBe(412);
      }
      expect(await store.readStored('140')).toEqual(before);
      expect((await ops.put('140', '{"name":"x"}', { 'if-none-match': '*' })).statusCode).toBe(412);
      expect((await ops.put('-140', '{"name":"x"}', { 'if-none-match': '*' })).statusCode).toBe(
        404,
      );
      expect(await ops.patch('140', '{"name":"New"}', { 'if-none-match': '"7"' })).toMatchObject({
        statusCode: 200,
        headers: { etag: '"2"' },
      });
      expect((await ops.remove('140', { 'if-none-match': '"2"' })).statusCode).toBe(412);
      expect((await ops.remove('140', { 'if-none-match': '*' })).statusCode).toBe(412);
      expect(await store.readStored('140')).toMatchObject({ name: 'New', version: '2' });
      // A DELETE whose If-None-Match names other versions deletes.
      expect(await ops.remove('140', { 'if-none-match': '"1", W/"7"' })).toEqual({
        statusCode: 204,
      });
      expect(await store.readStored('140')).toMatchObject({
        version: '3',
        deletedAt: expect.any(String),
      });
    });

    it('a change that would change nothing still meets its preconditions first: 412, not 200', async () => {
      await ops.create('145', 'Same');
      for (const change of [ops.put, ops.patch]) {
        for (const header of [
          ['if-match', '"9"'],
          ['if-none-match', '"1"'],
        ]) {
          expect(
            await change('145', '{"name":"Same"}', Object.fromEntries([header])),
          ).toMatchObject({
            statusCode: 412,
            headers: { etag: '"1"' },
          });
        }
        expect(await change('145', '{"name":"Same"}')).toMatchObject({
          statusCode: 200,
          headers: { etag: '"1"' },
        });
      }
    });

    it('GET with an If-Match that does not match is 412; one that matches, or *, reads', async () => {
      await ops.create('150', 'Read me');
      expect(await ops.get('150', { 'if-match': '"2"' })).toEqual({
        statusCode: 412,
        headers: { 'content-type': 'application/json', etag: '"1"' },
        body: '{"error":412,"message":"plant 150 is at version 1"}',
      });
      expect((await ops.get('150', { 'if-match': 'W/"1"' })).statusCode).toBe(412);
      for (const value of ['"1"', '"3", "1"', '*']) {
        expect(await ops.get('150', { 'if-match': value })).toMatchObject({
          statusCode: 200,
          body: '{"id":150,"name":"Read me"}',
        });
      }
      // If-Match is judged before If-None-Match.
      expect((await ops.get('150', { 'if-match': '"2"', 'if-none-match': '"1"' })).statusCode).toBe(
        412,
      );
      expect((await ops.get('150', { 'if-match': '"1"', 'if-none-match': '"1"' })).statusCode).toBe(
        304,
      );
      expect((await ops.get('-150', { 'if-match': '"1"' })).statusCode).toBe(404);
    });
  });

  describe('media types', () => {
    it('PATCH takes merge-patch+json or json; JSON Patch and the rest are 415 with Accept-Patch', async () => {
      await ops.create('160', 'Aloe');
      for (const type of [
        'application/json-patch+json',
        'application/vnd.plants+json',
        'text/plain',
      ]) {
        expect(await ops.patch('160', '{"name":"x"}', { 'content-type': type })).toEqual({
          statusCode: 415,
          headers: {
            'content-type': 'application/json',
            'accept-patch': 'application/merge-patch+json',
          },
          body: `{"error":415,"message":"content-type ${type} is not accepted; send application/merge-patch+json or application/json"}`,
        });
      }
      expect(await store.readStored('160')).toMatchObject({ name: 'Aloe' });
      for (const type of ['application/json', 'Application/Merge-Patch+JSON; charset=utf-8']) {
        expect((await ops.patch('160', '{"tag":"x"}', { 'content-type': type })).statusCode).toBe(
          200,
        );
      }
    });

    it('PUT takes a plant as JSON, never a patch document', async () => {
      await ops.create('170', 'Agave');
      for (const type of ['application/json-patch+json', 'application/merge-patch+json']) {
        expect(await ops.put('170', '{"name":"x"}', { 'content-type': type })).toEqual({
          statusCode: 415,
          headers: { 'content-type': 'application/json' },
          body: `{"error":415,"message":"content-type ${type} is not accepted; send application/json"}`,
        });
      }
      expect(await store.readStored('170')).toMatchObject({ name: 'Agave' });
      expect(
        (await ops.put('170', '{"name":"y"}', { 'content-type': 'application/vnd.plant+json' }))
          .statusCode,
      ).toBe(200);
    });
  });
});
