/**
 * `@plant-store/client` without a network, on the wire: ids sent and read with every digit (as
 * bigints), each answer read into its data or its error class, `withResponse`, per-call headers,
 * and pages. A `fetch` double answers (test/support/fake-fetch.ts); the same client against the
 * real runtime: test/client/e2e/client-http.test.ts.
 */
import {
  AuthenticationError,
  BadRequestError,
  ConflictError,
  InternalServerError,
  NotFoundError,
  PayloadTooLargeError,
  PermissionDeniedError,
  PlantStore,
  PlantStoreError,
  RateLimitError,
  type PlantId,
} from '@plant-store/client';
import { fakeFetch, fakeStore, TEST_TOKEN } from '../../support/fake-fetch';

describe('ids', () => {
  it.each<[string, PlantId]>([
    // eslint-disable-next-line no-loss-of-precision -- the rounding is what the client must refuse
    ['a number above 2^53', 9007199254740993],
    ['2^53', 2 ** 53],
    ['a fraction', 1.5],
    ['NaN', NaN],
    ['a string with a leading zero', '042'],
    ['an exponent', '1e3'],
    ['a string beyond int64', '9223372036854775808'],
    ['a bigint beyond int64', -(2n ** 63n) - 1n],
  ])('%s is refused with a TypeError before any request', async (_, id) => {
    const { fetch, requests } = fakeFetch({ status: 200, body: '{}' });
    const client = fakeStore(fetch);
    await expect(client.getPlant(id)).rejects.toThrow(TypeError);
    await expect(client.deletePlant(id)).rejects.toThrow(TypeError);
    await expect(client.createPlant({ id, name: 'x' })).rejects.toThrow(TypeError);
    expect(requests).toHaveLength(0);
  });

  it.each<[PlantId, string]>([
    ['042', `id "042" is not an integer's canonical decimal spelling`],
    [1.5, 'id 1.5 is not an integer'],
    // eslint-disable-next-line no-loss-of-precision -- the rounding is what the message names
    [9007199254740993, 'id 9007199254740992 is beyond 2^53 as a number'],
    ['9223372036854775808', 'id 9223372036854775808 is outside the int64 range'],
  ])('%p: the TypeError says why', async (id, message) => {
    const { fetch } = fakeFetch({ status: 200, body: '{}' });
    await expect(fakeStore(fetch).getPlant(id)).rejects.toThrow(message);
  });

  it('sends every digit, whichever way the id is given', async () => {
    const { fetch, requests } = fakeFetch({
      status: 200,
      body: '{"name":"Monstera","tag":"aroid"}',
    });
    const client = fakeStore(fetch);
    for (const id of [9007199254740993n, '9007199254740993']) {
      await expect(client.createPlant({ id, name: 'Monstera', tag: 'aroid' })).resolves.toEqual({
        name: 'Monstera',
        tag: 'aroid',
      });
    }
    await client.createPlant({ id: -42, name: 'No tag' });
    expect(requests.map((r) => r.body)).toEqual([
      '{"id":9007199254740993,"name":"Monstera","tag":"aroid"}',
      '{"id":9007199254740993,"name":"Monstera","tag":"aroid"}',
      '{"id":-42,"name":"No tag"}',
    ]);
    expect(requests[0]).toMatchObject({ method: 'POST', url: 'https://api.example/plants' });
    expect(requests[0]!.headers.get('authorization')).toBe(`Bearer ${TEST_TOKEN}`);
    expect(requests[0]!.headers.get('content-type')).toBe('application/json');
  });

  it('reads ids back as bigints with every digit, other numbers as numbers', async () => {
    const { fetch, requests } = fakeFetch(
      { status: 200, body: '{"id":-9223372036854775808,"name":"min"}' },
      {
        status: 200,
        body: '{"plants":[{"id":9007199254740993,"name":"a"},{"id":9223372036854775807,"name":"b","tag":"t"}],"next":"Mg"}',
      },
    );
    const client = fakeStore(fetch);
    await expect(client.getPlant(-(2n ** 63n))).resolves.toEqual({
      id: -9223372036854775808n,
      name: 'min',
    });
    await expect(client.listPage({ limit: 50, cursor: 'a b' })).resolves.toEqual({
      plants: [
        { id: 9007199254740993n, name: 'a' },
        { id: 9223372036854775807n, name: 'b', tag: 't' },
      ],
      next: 'Mg',
    });
    expect(requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      'GET https://api.example/plants/-9223372036854775808',
      'GET https://api.example/plants?limit=50&cursor=a%20b',
    ]);
  });
});

describe('answers', () => {
  it('deletePlant: 204 is true, the function’s 404 false, the gateway’s 404 an error', async () => {
    const { fetch } = fakeFetch(
      { status: 204 },
      { status: 404, body: '{"error":404,"message":"no plant with id 5"}' },
      { status: 404, body: '{"message":"Not Found"}' },
    );
    const client = fakeStore(fetch);
    await expect(client.deletePlant(5)).resolves.toBe(true);
    await expect(client.deletePlant(5)).resolves.toBe(false);
    await expect(client.deletePlant(5)).rejects.toMatchObject({
      name: 'NotFoundError',
      status: 404,
      error: 404,
      fromGateway: true,
      message: 'Not Found',
    });
  });

  it('an Error answer, a gateway answer and a foreign one are PlantStoreErrors', async () => {
    const { fetch } = fakeFetch(
      {
        status: 409,
        body: '{"error":409,"message":"id: 5 is already taken"}',
        headers: { 'apigw-requestid': 'abc=' },
      },
      { status: 401, body: '{"message":"Unauthorized"}' },
      { status: 502, body: '<html>Bad Gateway</html>', headers: { 'content-type': 'text/html' } },
    );
    const client = fakeStore(fetch);
    const conflict = await client.createPlant({ id: 5, name: 'x' }).catch((e: unknown) => e);
    expect(conflict).toBeInstanceOf(PlantStoreError);
    expect(conflict).toMatchObject({
      status: 409,
      error: 409,
      message: 'id: 5 is already taken',
      fromGateway: false,
      requestId: 'abc=',
    });
    await expect(client.getPlant(5)).rejects.toMatchObject({
      status: 401,
      message: 'Unauthorized',
      fromGateway: true,
    });
    await expect(client.getPlant(5)).rejects.toMatchObject({
      status: 502,
      message: 'HTTP 502: Bad Gateway',
      fromGateway: true,
    });
  });

  it('a page that is not JSON: only its title, or a short start of its text, is in the message', async () => {
    const page = (head: string) =>
      `<!DOCTYPE html>\n<html>${head}<body>\n<h1>Bad Gateway</h1>\n${'<p>details '.repeat(500)}</body></html>`;
    const { fetch } = fakeFetch(
      { status: 502, body: page('<head><title>502 Bad Gateway</title></head>') },
      { status: 502, body: page('') },
      { status: 502, body: '  ' },
    );
    const client = fakeStore(fetch, 0);
    await expect(client.getPlant(5)).rejects.toMatchObject({
      message: 'HTTP 502: 502 Bad Gateway',
    });
    const untitled = (await client.getPlant(5).catch((e: unknown) => e)) as Error;
    expect(untitled.message).toMatch(/^HTTP 502: Bad Gateway details details .*…$/);
    expect(untitled.message.length).toBeLessThanOrEqual('HTTP 502: '.length + 81);
    await expect(client.getPlant(5)).rejects.toMatchObject({ message: 'HTTP 502' });
  });
});

describe('error classes', () => {
  it.each<[number, string, typeof PlantStoreError]>([
    [400, '{"error":400,"message":"name: required"}', BadRequestError],
    [401, '{"message":"Unauthorized"}', AuthenticationError],
    [403, '{"message":"Forbidden"}', PermissionDeniedError],
    [404, '{"error":404,"message":"no plant with id 5"}', NotFoundError],
    [409, '{"error":409,"message":"id: 5 is already taken"}', ConflictError],
    [413, '{"message":"Request Entity Too Large"}', PayloadTooLargeError],
    [429, '{"message":"Too Many Requests"}', RateLimitError],
    [500, '{"error":500,"message":"internal error"}', InternalServerError],
    [503, '{"error":503,"message":"the store is unavailable"}', InternalServerError],
    [415, '{"error":415,"message":"content-type must be application/json"}', PlantStoreError],
  ])('%d is a %p with its headers and request id', async (status, body, Class) => {
    const { fetch } = fakeFetch({
      status,
      body,
      headers: { 'apigw-requestid': `req-${status}`, 'x-trace': 't1' },
    });
    const error = await fakeStore(fetch, 0)
      .getPlant(5)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Class);
    expect(error).toBeInstanceOf(PlantStoreError);
    expect(error).toMatchObject({ name: Class.errorName, status, requestId: `req-${status}` });
    expect((error as PlantStoreError).headers.get('x-trace')).toBe('t1');
    if (Class === PlantStoreError) expect((error as Error).name).toBe('PlantStoreError');
  });

  it('a malformed answer is a PlantStoreError, never a SyntaxError', async () => {
    const { fetch } = fakeFetch(
      { status: 200, body: '{"id":1.5,"name":"a"}', headers: { 'apigw-requestid': 'm1' } },
      { status: 200, body: '<html>a portal</html>' },
      { status: 200, body: '{"id":9223372036854775808,"name":"a"}' },
      { status: 200, body: '[]' },
      { status: 200, body: '{"name":"no id"}' },
    );
    const client = fakeStore(fetch);
    for (const why of [
      'id 1.5 is not an int64',
      'not JSON',
      'id 9223372036854775808 is not an int64',
      'not the object',
      'not the object',
    ]) {
      const error = await client.getPlant(1).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PlantStoreError);
      expect((error as Error).message).toContain(why);
      expect(error).toMatchObject({ status: 200 });
    }
  });

  it('numbers other than ids read as JSON.parse reads them; ids never through a float', async () => {
    const { fetch } = fakeFetch({
      status: 200,
      body: '{"plants":[{"id":9007199254740993,"name":"a"}],"count":9007199254740993,"ratio":0.1}',
    });
    const page = (await fakeStore(fetch).listPage()) as unknown as Record<string, unknown>;
    expect(page).toEqual({
      plants: [{ id: 9007199254740993n, name: 'a' }],
      count: JSON.parse('9007199254740993'),
      ratio: 0.1,
    });
  });
});

describe('withResponse', () => {
  it('gives the data exactly as the call does, and the Response', async () => {
    const { fetch } = fakeFetch(
      {
        status: 200,
        body: '{"id":9007199254740993,"name":"a"}',
        headers: { 'apigw-requestid': 'r1' },
      },
      { status: 204, headers: { 'apigw-requestid': 'r2' } },
    );
    const client = fakeStore(fetch);
    const { data, response } = await client.getPlant(9007199254740993n).withResponse();
    expect(data).toEqual({ id: 9007199254740993n, name: 'a' });
    expect(response).toBeInstanceOf(Response);
    expect(response.headers.get('apigw-requestid')).toBe('r1');
    const deleted = await client.deletePlant(1).withResponse();
    expect(deleted.data).toBe(true);
    expect(deleted.response.status).toBe(204);
  });

  it('rejects as the call does; the call is still a Promise', async () => {
    const { fetch } = fakeFetch({ status: 409, body: '{"error":409,"message":"taken"}' });
    const call = fakeStore(fetch).createPlant({ id: 1, name: 'a' });
    expect(call).toBeInstanceOf(Promise);
    await expect(call.withResponse()).rejects.toBeInstanceOf(ConflictError);
    await expect(call).rejects.toBeInstanceOf(ConflictError);
  });
});

describe('per-call options', () => {
  it('headers: the client’s, then the call’s over them; the token always', async () => {
    const { fetch, requests } = fakeFetch({ status: 200, body: '{"id":1,"name":"a"}' });
    const client = new PlantStore({
      baseUrl: 'https://api.example',
      token: TEST_TOKEN,
      fetch,
      headers: { 'x-app': 'shop', 'x-trace-id': 'client' },
    });
    await client.getPlant(1, { headers: { 'x-trace-id': 'call-1' } });
    await client.getPlant(1);
    expect(requests.map((r) => [r.headers.get('x-app'), r.headers.get('x-trace-id')])).toEqual([
      ['shop', 'call-1'],
      ['shop', 'client'],
    ]);
    expect(requests[0]!.headers.get('authorization')).toBe(`Bearer ${TEST_TOKEN}`);
  });

  it('retry: members given replace the client’s; no retries for one call', async () => {
    const unavailable = { status: 503, body: '{"error":503,"message":"x"}' };
    const { fetch, requests } = fakeFetch(unavailable);
    const client = fakeStore(fetch, 3);
    await expect(client.getPlant(1, { retry: { retries: 0 } })).rejects.toBeInstanceOf(
      InternalServerError,
    );
    expect(requests).toHaveLength(1);
    await expect(client.getPlant(1, { retry: { retries: 1 } })).rejects.toMatchObject({
      status: 503,
    });
    expect(requests).toHaveLength(3);
  });
});

describe('pages', () => {
  // A page may be short, even empty, while next is present; the walk ends when next is absent.
  const three = () =>
    fakeFetch(
      { status: 200, body: '{"plants":[{"id":1,"name":"a"}],"next":"c1"}' },
      { status: 200, body: '{"plants":[],"next":"c2"}' },
      { status: 200, body: '{"plants":[{"id":2,"name":"b"}]}' },
    );

  it('pages() yields each page with its next; listPlants resumes from a saved cursor, through empty pages, until next is absent', async () => {
    const { fetch, requests } = three();
    const client = fakeStore(fetch);
    let saved: string | undefined;
    for await (const page of client.pages({ pageSize: 7 })) {
      expect(page).toEqual({ plants: [{ id: 1n, name: 'a' }], next: 'c1' });
      saved = page.next;
      break; // a crash after the first page
    }
    const rest: bigint[] = [];
    for await (const plant of client.listPlants({ pageSize: 7, cursor: saved })) {
      rest.push(plant.id);
    }
    expect(rest).toEqual([2n]);
    expect(requests.map((r) => new URL(r.url).search)).toEqual([
      '?limit=7',
      '?limit=7&cursor=c1',
      '?limit=7&cursor=c2',
    ]);
  });

  it('listPlants({ tag }) keeps the tag on every page, percent-encoded, with the cursors', async () => {
    const { fetch, requests } = three();
    const ids: bigint[] = [];
    for await (const plant of fakeStore(fetch).listPlants({ tag: 'two words/ü', pageSize: 2 })) {
      ids.push(plant.id);
    }
    expect(ids).toEqual([1n, 2n]);
    expect(requests.map((r) => new URL(r.url).search)).toEqual([
      '?limit=2&tag=two%20words%2F%C3%BC',
      '?limit=2&tag=two%20words%2F%C3%BC&cursor=c1',
      '?limit=2&tag=two%20words%2F%C3%BC&cursor=c2',
    ]);
  });

  it('the call options reach every page’s request', async () => {
    const { fetch, requests } = three();
    const pages = [];
    for await (const page of fakeStore(fetch).pages({ headers: { 'x-trace-id': 'walk' } })) {
      pages.push(page);
    }
    expect(pages.map((page) => page.next)).toEqual(['c1', 'c2', undefined]);
    expect(new Set(requests.map((r) => r.headers.get('x-trace-id')))).toEqual(new Set(['walk']));
  });
});
