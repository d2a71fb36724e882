/**
 * `@plant-store/client` without a network: what goes on the wire, how answers are read (ids as
 * bigints with every digit), errors, and retries — the faults injected by a `fetch` that answers
 * what a failing deployment would. The same client against the real runtime: e2e/client.test.ts.
 */
import { PlantStore, PlantStoreError, type PlantId } from '@plant-store/client';

type Reply = { status: number; body?: string; headers?: Record<string, string> } | Error;

/** A `fetch` that records each request and gives the next reply (the last one repeats). */
function fakeFetch(...replies: Reply[]) {
  const requests: { method: string; url: string; headers: Headers; body: string }[] = [];
  const fetch = async (request: Request): Promise<Response> => {
    requests.push({
      method: request.method,
      url: request.url,
      headers: request.headers,
      body: await request.text(),
    });
    const reply = replies[Math.min(requests.length, replies.length) - 1]!;
    if (!('status' in reply)) throw reply;
    return new Response(reply.body ?? null, {
      status: reply.status,
      headers: { 'content-type': 'application/json', ...reply.headers },
    });
  };
  return { fetch, requests };
}

const TOKEN = 'pst_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
const store = (fetch: (request: Request) => Promise<Response>, retries = 3) =>
  new PlantStore({
    baseUrl: 'https://api.example/',
    token: TOKEN,
    fetch,
    retry: { retries, baseDelayMs: 1 },
  });

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
    const client = store(fetch);
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
    await expect(store(fetch).getPlant(id)).rejects.toThrow(message);
  });

  it('sends every digit, whichever way the id is given', async () => {
    const { fetch, requests } = fakeFetch({
      status: 200,
      body: '{"name":"Monstera","tag":"aroid"}',
    });
    const client = store(fetch);
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
    expect(requests[0]!.headers.get('authorization')).toBe(`Bearer ${TOKEN}`);
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
    const client = store(fetch);
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
  it('listPlants walks until next is absent, through empty pages', async () => {
    const { fetch, requests } = fakeFetch(
      { status: 200, body: '{"plants":[{"id":1,"name":"a"}],"next":"c1"}' },
      { status: 200, body: '{"plants":[],"next":"c2"}' },
      { status: 200, body: '{"plants":[{"id":2,"name":"b"}]}' },
    );
    const ids: bigint[] = [];
    for await (const plant of store(fetch).listPlants({ pageSize: 7 })) ids.push(plant.id);
    expect(ids).toEqual([1n, 2n]);
    expect(requests.map((r) => new URL(r.url).search)).toEqual([
      '?limit=7',
      '?limit=7&cursor=c1',
      '?limit=7&cursor=c2',
    ]);
  });

  it('deletePlant: 204 is true, the function’s 404 false, the gateway’s 404 an error', async () => {
    const { fetch } = fakeFetch(
      { status: 204 },
      { status: 404, body: '{"error":404,"message":"no plant with id 5"}' },
      { status: 404, body: '{"message":"Not Found"}' },
    );
    const client = store(fetch);
    await expect(client.deletePlant(5)).resolves.toBe(true);
    await expect(client.deletePlant(5)).resolves.toBe(false);
    await expect(client.deletePlant(5)).rejects.toMatchObject({
      name: 'PlantStoreError',
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
    const client = store(fetch);
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
      message: 'HTTP 502: <html>Bad Gateway</html>',
    });
  });
});

describe('retries', () => {
  const unavailable = {
    status: 503,
    body: '{"error":503,"message":"the store is unavailable"}',
    headers: { 'retry-after': '0' },
  };

  it('503 and 429 are retried until an answer comes', async () => {
    const { fetch, requests } = fakeFetch(
      unavailable,
      { status: 429, body: '{"message":"Too Many Requests"}' },
      { status: 200, body: '{"id":1,"name":"a"}' },
    );
    await expect(store(fetch).getPlant(1)).resolves.toEqual({ id: 1n, name: 'a' });
    expect(requests).toHaveLength(3);
  });

  it('a 503 that lasts surfaces as a PlantStoreError with retryAfter, after the retries', async () => {
    const { fetch, requests } = fakeFetch(unavailable);
    await expect(store(fetch, 2).createPlant({ id: 1, name: 'a' })).rejects.toMatchObject({
      name: 'PlantStoreError',
      status: 503,
      error: 503,
      retryAfter: 0,
    });
    expect(requests).toHaveLength(3);
    expect(new Set(requests.map((r) => r.body))).toEqual(new Set(['{"id":1,"name":"a"}']));
  });

  it('the gateway’s 500 is retried; the function’s 500 (a bug) and a 4xx are not', async () => {
    const gateway = fakeFetch({ status: 500, body: '{"message":"Internal Server Error"}' });
    await expect(store(gateway.fetch, 1).getPlant(1)).rejects.toMatchObject({ status: 500 });
    expect(gateway.requests).toHaveLength(2);
    const bug = fakeFetch({ status: 500, body: '{"error":500,"message":"internal error"}' });
    await expect(store(bug.fetch).getPlant(1)).rejects.toMatchObject({ status: 500 });
    expect(bug.requests).toHaveLength(1);
    const invalid = fakeFetch({ status: 400, body: '{"error":400,"message":"name: required"}' });
    await expect(store(invalid.fetch).getPlant(1)).rejects.toMatchObject({ status: 400 });
    expect(invalid.requests).toHaveLength(1);
  });

  it('a network failure is retried, then a PlantStoreError with status 0 and the cause', async () => {
    const refused = new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } });
    const once = fakeFetch(refused, { status: 204 });
    await expect(store(once.fetch).deletePlant(1)).resolves.toBe(true);
    expect(once.requests).toHaveLength(2);
    const always = fakeFetch(refused);
    const error = await store(always.fetch, 2)
      .deletePlant(1)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'PlantStoreError', status: 0, cause: refused });
    expect((error as Error).message).toContain('ECONNREFUSED');
    expect(always.requests).toHaveLength(3);
  });

  it('a Retry-After beyond maxDelayMs is not waited for', async () => {
    const { fetch, requests } = fakeFetch({ ...unavailable, headers: { 'retry-after': '3600' } });
    await expect(store(fetch).getPlant(1)).rejects.toMatchObject({ status: 503, retryAfter: 3600 });
    expect(requests).toHaveLength(1);
  });

  it('an abort stops the waits between retries: no request after it', async () => {
    const { fetch, requests } = fakeFetch({ ...unavailable, headers: { 'retry-after': '10' } });
    const controller = new AbortController();
    const client = new PlantStore({
      baseUrl: 'https://api.example',
      token: TOKEN,
      fetch,
      signal: controller.signal,
    });
    const call = client.getPlant(1);
    setTimeout(() => controller.abort(new Error('stop')), 20);
    await expect(call).rejects.toThrow('stop');
    expect(requests).toHaveLength(1);
    await expect(client.getPlant(1)).rejects.toThrow('stop');
    expect(requests).toHaveLength(1);
  });
});
