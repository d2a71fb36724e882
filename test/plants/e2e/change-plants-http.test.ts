/**
 * PUT and PATCH /plants/{id} and conditional requests over HTTP against the local runtime (what
 * `npm start` runs), through `@plant-store/client` and raw `fetch` (every answer checked against
 * openapi.json): read-modify-write in two lines, concurrent editors with and without If-Match,
 * ids at the int64 limits, 304, the CORS headers a page's script needs, and the scope; who sees
 * what, versions across delete and re-create, preconditions and media types.
 */
import {
  NotFoundError,
  PermissionDeniedError,
  PlantStore,
  PreconditionFailedError,
} from '@plant-store/client';
import { cliEnvironment, storeTokenOf110, useLocalService } from '../../support/local-service';
import { runCommand } from '../../support/run-cli';

const service = useLocalService('change-plants');
let store: PlantStore;
beforeAll(() => {
  store = new PlantStore({ baseUrl: service.url, token: service.devToken });
});

async function send(
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
) {
  const response = await fetch(`${service.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${service.devToken}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    body,
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

it.each([2n ** 63n - 1n, -(2n ** 63n), 9007199254740993n])(
  'read-modify-write of %p in two lines, then a stale write is a PreconditionFailedError',
  async (id) => {
    await store.createPlant({ id, name: 'Monstera', tag: 'aroid' });
    const plant = await store.getPlant(id);
    const changed = await store.updatePlant(
      id,
      { ...plant, name: 'Monstera deliciosa' },
      { ifMatch: plant.version },
    );
    expect(changed).toEqual({ id, name: 'Monstera deliciosa', tag: 'aroid' });
    expect([plant.version, changed.version]).toEqual([1, 2]);
    const stale = await store
      .patchPlant(id, { tag: null }, { ifMatch: plant.version })
      .catch((e: unknown) => e);
    expect(stale).toBeInstanceOf(PreconditionFailedError);
    expect(stale).toMatchObject({
      status: 412,
      currentVersion: 2,
      message: `plant ${id} is at version 2`,
    });
    const patched = await store.patchPlant(id, { tag: null }, { ifMatch: changed.version });
    expect(patched).toEqual({ id, name: 'Monstera deliciosa' });
    expect(patched.version).toBe(3);
    await expect(store.getPlant(id)).resolves.toEqual(patched);
  },
);

it('40 concurrent PATCHes with the same If-Match: one 200, 39 412; without: all 200, each its own version', async () => {
  await store.createPlant({ id: 4040n, name: 'Contested' });
  const noRetry = { retry: { retries: 0 } };
  const raced = await Promise.allSettled(
    Array.from({ length: 40 }, (_, n) =>
      store.patchPlant(4040n, { name: `editor ${n}` }, { ifMatch: 1, ...noRetry }),
    ),
  );
  expect(raced.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
  const refused = raced.filter((r) => r.status === 'rejected');
  expect(refused).toHaveLength(39);
  for (const r of refused)
    expect((r as PromiseRejectedResult).reason).toBeInstanceOf(PreconditionFailedError);

  // Without If-Match, with the client's retries, as a client sends them (each one counted: the
  // client tells its logger's `warn`). On a starved machine a function can miss its store's
  // timeout and answer 503 for a write that landed; its retry then writes again.
  let retried = 0;
  const quiet = () => undefined;
  const counted = new PlantStore({
    baseUrl: service.url,
    token: service.devToken,
    logger: { debug: quiet, info: quiet, error: quiet, warn: () => void retried++ },
  });
  const before = (await store.getPlant(4040n)).version!;
  const all = await Promise.all(
    Array.from({ length: 40 }, (_, n) => counted.patchPlant(4040n, { tag: `t${n}` })),
  );
  // Each answered with a version of its own (no update lost), and the plant is at the latest:
  // exactly 40 more, or more by at most the retries.
  const versions = all.map((plant) => plant.version!);
  expect(new Set(versions).size).toBe(40);
  expect(versions.every((version) => version > before)).toBe(true);
  const after = (await store.getPlant(4040n)).version!;
  expect(after).toBe(Math.max(...versions));
  expect(after - before - 40).toBeGreaterThanOrEqual(0);
  expect(after - before - 40).toBeLessThanOrEqual(retried);
}, 300_000);

it('raw HTTP: ETag, 304 for If-None-Match, 412 for If-Match, merge-patch+json, 404, and the scope', async () => {
  await store.createPlant({ id: 77n, name: 'Ivy' });
  const read = await send('GET', '/plants/77');
  expect([read.status, read.headers.get('etag'), read.text]).toEqual([
    200,
    '"1"',
    '{"id":77,"name":"Ivy"}',
  ]);
  const notModified = await send('GET', '/plants/77', { 'if-none-match': '"1"' });
  expect([notModified.status, notModified.headers.get('etag'), notModified.text]).toEqual([
    304,
    '"1"',
    '',
  ]);
  const patched = await send(
    'PATCH',
    '/plants/77',
    { 'content-type': 'application/merge-patch+json', 'if-match': '"1"' },
    '{"tag":"vine"}',
  );
  expect([patched.status, patched.headers.get('etag'), patched.text]).toEqual([
    200,
    '"2"',
    '{"id":77,"name":"Ivy","tag":"vine"}',
  ]);
  const refused = await send('DELETE', '/plants/77', { 'if-match': '"1"' });
  expect([refused.status, refused.headers.get('etag'), refused.text]).toEqual([
    412,
    '"2"',
    '{"error":412,"message":"plant 77 is at version 2"}',
  ]);
  expect((await send('PUT', '/plants/78', {}, '{"name":"x"}')).status).toBe(404);
  await expect(store.updatePlant(78n, { name: 'x' })).rejects.toBeInstanceOf(NotFoundError);
  await expect(store.deletePlant(77n, { ifMatch: 2 })).resolves.toBe(true);
});

it('a page’s script may send If-Match and read ETag (CORS)', async () => {
  const preflight = await fetch(`${service.url}/plants/1`, {
    method: 'OPTIONS',
    headers: { origin: 'https://shop.example', 'access-control-request-method': 'PATCH' },
  });
  expect(preflight.status).toBe(204);
  expect(preflight.headers.get('access-control-allow-methods')).toContain('PATCH');
  expect(preflight.headers.get('access-control-allow-headers')).toContain('if-match');
  const read = await send('GET', '/plants/1', { origin: 'https://shop.example' });
  expect(read.headers.get('access-control-expose-headers')).toContain('etag');
});

it('a token without plants:write cannot change a plant', async () => {
  await store.createPlant({ id: 90n, name: 'Guarded' });
  const reader = new PlantStore({
    baseUrl: service.url,
    token: 'pst_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
  });
  await expect(reader.patchPlant(90n, { name: 'x' })).rejects.toBeInstanceOf(PermissionDeniedError);
  await expect(store.getPlant(90n)).resolves.toEqual({ id: 90n, name: 'Guarded' });
});

describe('what guards a change, over HTTP', () => {
  let writer = '';
  beforeAll(async () => {
    const created = await runCommand(
      'token',
      ['create', '--name', 'e2e writer', '--scopes', 'plants:write'],
      cliEnvironment(service),
    );
    expect(created.code).toBe(0);
    writer = created.stdout.trim();
  }, 300_000);

  it('a write-only token: 403 on GET, 204 with the ETag and no body on PUT and PATCH; PATCH {} changes nothing', async () => {
    await store.createPlant({ id: 500n, name: 'Secret', tag: 'hidden' });
    const asWriter = { authorization: `Bearer ${writer}` };
    expect((await send('GET', '/plants/500', asWriter)).status).toBe(403);
    for (const body of ['{}', '{"name":"Secret"}']) {
      const unchanged = await send('PATCH', '/plants/500', asWriter, body);
      expect([unchanged.status, unchanged.headers.get('etag'), unchanged.text]).toEqual([
        204,
        '"1"',
        '',
      ]);
    }
    const put = await send('PUT', '/plants/500', asWriter, '{"name":"Mine"}');
    expect([put.status, put.headers.get('etag'), put.text]).toEqual([204, '"2"', '']);
    const read = await store.getPlant(500n);
    expect([read, read.version]).toEqual([{ id: 500n, name: 'Mine' }, 2]);
  });

  it('a write token as 1.1.0 stored it (no scopes revision): it creates, but PUT and PATCH are 403', async () => {
    const token = await storeTokenOf110(service, 'ingest (1.1.0)', ['plants:write']);
    const asOld = { authorization: `Bearer ${token}` };
    expect((await send('POST', '/plants', asOld, '{"id":505,"name":"Ingested"}')).status).toBe(200);
    for (const method of ['PUT', 'PATCH']) {
      const refused = await send(method, '/plants/505', asOld, '{"name":"Overwritten"}');
      expect([refused.status, JSON.parse(refused.text)]).toEqual([
        403,
        {
          error: 403,
          message:
            'the token was made before 1.2.0, when its scope plants:write did not cover this operation; make a new token for it',
        },
      ]);
    }
    const read = await store.getPlant(505n);
    expect([read, read.version]).toEqual([{ id: 505n, name: 'Ingested' }, 1]);
  });

  it('GET "1", DELETE, POST again: a new ETag; the old one is 200 on If-None-Match, 412 on If-Match', async () => {
    await store.createPlant({ id: 510n, name: 'First' });
    expect((await send('GET', '/plants/510')).headers.get('etag')).toBe('"1"');
    expect((await send('DELETE', '/plants/510')).status).toBe(204);
    expect((await send('POST', '/plants', {}, '{"id":510,"name":"Second"}')).status).toBe(200);
    const read = await send('GET', '/plants/510');
    expect([read.status, read.headers.get('etag'), read.text]).toEqual([
      200,
      '"3"',
      '{"id":510,"name":"Second"}',
    ]);
    expect((await send('GET', '/plants/510', { 'if-none-match': '"1"' })).status).toBe(200);
    const lost = await send('PUT', '/plants/510', { 'if-match': '"1"' }, '{"name":"Lost"}');
    expect([lost.status, lost.text]).toEqual([
      412,
      '{"error":412,"message":"plant 510 is at version 3"}',
    ]);
    await expect(store.getPlant(510n)).resolves.toEqual({ id: 510n, name: 'Second' });
  });

  it('If-None-Match: * on PUT and PATCH of a plant that exists is 412; If-Match on GET that does not match is 412', async () => {
    await store.createPlant({ id: 520n, name: 'Kept' });
    for (const method of ['PUT', 'PATCH']) {
      const refused = await send(method, '/plants/520', { 'if-none-match': '*' }, '{"name":"x"}');
      expect([refused.status, refused.headers.get('etag'), refused.text]).toEqual([
        412,
        '"1"',
        '{"error":412,"message":"plant 520 is at version 1"}',
      ]);
    }
    const read = await send('GET', '/plants/520', { 'if-match': '"2"' });
    expect([read.status, read.headers.get('etag')]).toEqual([412, '"1"']);
    expect((await send('GET', '/plants/520', { 'if-match': '"1"' })).status).toBe(200);
    await expect(store.getPlant(520n)).resolves.toEqual({ id: 520n, name: 'Kept' });
  });

  it('PATCH as JSON Patch is 415 with Accept-Patch and the Error body; PUT as a merge patch is 415', async () => {
    await store.createPlant({ id: 530n, name: 'Aloe' });
    const patch = await send(
      'PATCH',
      '/plants/530',
      { 'content-type': 'application/json-patch+json' },
      '{"name":"x"}',
    );
    expect([patch.status, patch.headers.get('accept-patch'), patch.text]).toEqual([
      415,
      'application/merge-patch+json',
      '{"error":415,"message":"content-type application/json-patch+json is not accepted; send application/merge-patch+json or application/json"}',
    ]);
    const put = await send(
      'PUT',
      '/plants/530',
      { 'content-type': 'application/merge-patch+json' },
      '{"name":"x"}',
    );
    expect(put.status).toBe(415);
    await expect(store.getPlant(530n)).resolves.toEqual({ id: 530n, name: 'Aloe' });
  });
});
