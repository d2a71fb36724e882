/**
 * `@plant-store/client`'s changes and versions without a network: what `updatePlant`,
 * `patchPlant` and a conditional `deletePlant` put on the wire, the version a read exposes (from
 * `ETag`, not enumerable), and the 412 as a `PreconditionFailedError` with the current version.
 * The same calls against the real runtime: test/client/e2e/client-http.test.ts.
 */
import {
  NotFoundError,
  PlantStore,
  PlantStoreError,
  PreconditionFailedError,
} from '@plant-store/client';
import { fakeFetch } from '../../support/fake-fetch';

const TOKEN = 'pst_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
const store = (fetch: (request: Request) => Promise<Response>) =>
  new PlantStore({ baseUrl: 'https://api.example', token: TOKEN, fetch, retry: { retries: 0 } });
const PLANT = '{"id":9007199254740993,"name":"Monstera","tag":"aroid"}';

it('a read exposes its ETag as version; spreading, comparing and printing leave it out', async () => {
  const { fetch } = fakeFetch({ status: 200, body: PLANT, headers: { etag: '"7"' } });
  const plant = await store(fetch).getPlant(9007199254740993n);
  expect(plant.version).toBe(7);
  expect(plant).toEqual({ id: 9007199254740993n, name: 'Monstera', tag: 'aroid' });
  expect({ ...plant }).not.toHaveProperty('version');
  expect(Object.keys(plant)).toEqual(['id', 'name', 'tag']);
});

it('read-modify-write is two lines: the read’s version goes out as If-Match', async () => {
  const { fetch, requests } = fakeFetch(
    { status: 200, body: PLANT, headers: { etag: '"7"' } },
    {
      status: 200,
      body: PLANT.replace('Monstera', 'Monstera deliciosa'),
      headers: { etag: '"8"' },
    },
  );
  const client = store(fetch);
  const plant = await client.getPlant(9007199254740993n);
  const changed = await client.updatePlant(
    plant.id,
    { ...plant, name: 'Monstera deliciosa' },
    { ifMatch: plant.version },
  );
  expect(changed.version).toBe(8);
  expect(requests[1]).toMatchObject({
    method: 'PUT',
    url: 'https://api.example/plants/9007199254740993',
    body: '{"name":"Monstera deliciosa","tag":"aroid"}',
  });
  expect(requests[1]!.headers.get('if-match')).toBe('"7"');
  expect(requests[1]!.headers.get('content-type')).toBe('application/json');
});

it('patchPlant sends a merge patch: null removes, absent keeps, nothing else goes', async () => {
  const { fetch, requests } = fakeFetch({
    status: 200,
    body: '{"id":5,"name":"Fern"}',
    headers: { etag: '"2"' },
  });
  const patch = { tag: null, color: 'green' } as unknown as { tag: null };
  await expect(store(fetch).patchPlant(5, patch)).resolves.toEqual({ id: 5n, name: 'Fern' });
  expect(requests[0]).toMatchObject({ method: 'PATCH', body: '{"tag":null}' });
  expect(requests[0]!.headers.get('content-type')).toBe('application/merge-patch+json');
  expect(requests[0]!.headers.has('if-match')).toBe(false);
});

it.each([
  [3, '"3"'],
  [[3, 4], '"3", "4"'],
  ['*', '*'],
] as const)('ifMatch %p is sent as If-Match %s, on deletes too', async (ifMatch, header) => {
  const { fetch, requests } = fakeFetch({ status: 204 });
  await expect(store(fetch).deletePlant(5, { ifMatch })).resolves.toBe(true);
  expect(requests[0]!.headers.get('if-match')).toBe(header);
});

it('a bad ifMatch is a TypeError and nothing is sent', async () => {
  const { fetch, requests } = fakeFetch({ status: 200, body: PLANT });
  for (const ifMatch of [0, 1.5, [], 'latest', null, '4', [1, '2']] as never[]) {
    await expect(store(fetch).patchPlant(1, { name: 'x' }, { ifMatch })).rejects.toThrow(
      /^ifMatch must be '\*' or versions \(positive integers\)/,
    );
  }
  expect(requests).toHaveLength(0);
});

it('412 is a PreconditionFailedError that says the current version; 404 a NotFoundError', async () => {
  const { fetch } = fakeFetch(
    {
      status: 412,
      body: '{"error":412,"message":"plant 5 is at version 9"}',
      headers: { etag: '"9"' },
    },
    { status: 404, body: '{"error":404,"message":"no plant with id 5"}' },
  );
  const client = store(fetch);
  const refused = await client.updatePlant(5, { name: 'x' }, { ifMatch: 8 }).catch((e) => e);
  expect(refused).toBeInstanceOf(PreconditionFailedError);
  expect(refused).toBeInstanceOf(PlantStoreError);
  expect(refused).toMatchObject({
    name: 'PreconditionFailedError',
    status: 412,
    currentVersion: 9,
    message: 'plant 5 is at version 9',
  });
  await expect(client.patchPlant(5, { name: 'x' })).rejects.toBeInstanceOf(NotFoundError);
});

it('a weak ETag (a compressing proxy’s) names its version; none leaves version undefined; another is malformed', async () => {
  const weak = fakeFetch(
    { status: 200, body: PLANT, headers: { etag: 'W/"4"' } },
    { status: 200, body: PLANT, headers: { etag: 'W/"5"' } },
    { status: 204, headers: { etag: 'W/"6"' } },
    {
      status: 412,
      body: '{"error":412,"message":"plant 1 is at version 6"}',
      headers: { etag: 'W/"6"' },
    },
  );
  const client = store(weak.fetch);
  expect((await client.getPlant(1)).version).toBe(4);
  expect((await client.updatePlant(1, { name: 'Monstera' }, { ifMatch: 4 })).version).toBe(5);
  await expect(client.patchPlant(1, { name: 'x' }, { ifMatch: 5 })).resolves.toStrictEqual({
    id: 1n,
    version: 6,
  });
  await expect(client.deletePlant(1, { ifMatch: 5 })).rejects.toMatchObject({
    name: 'PreconditionFailedError',
    currentVersion: 6,
  });
  // A change sends the version back as the strong ETag the API made.
  expect(weak.requests[1]!.headers.get('if-match')).toBe('"4"');

  const none = fakeFetch({ status: 200, body: PLANT }, { status: 204 });
  const read = await store(none.fetch).getPlant(1);
  expect([read, read.version]).toEqual([
    { id: 9007199254740993n, name: 'Monstera', tag: 'aroid' },
    undefined,
  ]);
  // A change made and answered without an ETag resolves: it happened; its version is unknown.
  await expect(store(none.fetch).patchPlant(1, { tag: null })).resolves.toStrictEqual({
    id: 1n,
    version: undefined,
  });

  // That unknown version given as ifMatch is refused before anything is sent: no condition is
  // dropped unasked.
  const unsent = fakeFetch();
  for (const call of [
    () => store(unsent.fetch).patchPlant(1, { tag: null }, { ifMatch: read.version }),
    () => store(unsent.fetch).updatePlant(1, { name: 'x' }, { ifMatch: read.version }),
    () => store(unsent.fetch).deletePlant(1, { ifMatch: read.version }),
  ]) {
    await expect(call()).rejects.toThrow(
      new TypeError(
        'ifMatch is undefined: the version is unknown (its answer had no ETag); read the plant again, or leave ifMatch out to change whatever is stored',
      ),
    );
  }
  expect(unsent.requests).toHaveLength(0);

  for (const etag of ['W/"abc"', '"0"', 'W/4', '"4"x']) {
    const odd = fakeFetch({ status: 200, body: PLANT, headers: { etag } });
    await expect(store(odd.fetch).getPlant(1)).rejects.toThrow(/malformed answer/);
  }
});

it('a token without plants:read: updatePlant’s 204 answers the plant it sent, at the ETag’s version', async () => {
  const { fetch } = fakeFetch({ status: 204, headers: { etag: '"4"' } });
  const replaced = await store(fetch).updatePlant(9007199254740993n, { name: 'Fern', tag: 'new' });
  expect([replaced, replaced.version]).toEqual([
    { id: 9007199254740993n, name: 'Fern', tag: 'new' },
    4,
  ]);
});

it('a token without plants:read: patchPlant’s 204 answers the id and the ETag’s version, no members', async () => {
  const { fetch, requests } = fakeFetch({ status: 204, headers: { etag: '"8"' } });
  const patched = await store(fetch).patchPlant(9007199254740993n, { tag: null }, { ifMatch: 7 });
  expect(patched).toStrictEqual({ id: 9007199254740993n, version: 8 });
  expect(requests).toHaveLength(1);
  const odd = fakeFetch({ status: 204, headers: { etag: '"x"' } });
  await expect(store(odd.fetch).patchPlant(1, { name: 'x' })).rejects.toThrow(/malformed answer/);
});
