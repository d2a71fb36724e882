/**
 * `@plant-store/client` without a network: what goes on the wire, how answers are read (ids as
 * bigints with every digit), errors, and retries — the faults injected by a `fetch` that answers
 * what a failing deployment would. The same client against the real runtime: e2e/client.test.ts.
 */
import {
  AuthenticationError,
  BadRequestError,
  ConflictError,
  ConnectionError,
  ConnectionTimeoutError,
  InternalServerError,
  NotFoundError,
  PayloadTooLargeError,
  PermissionDeniedError,
  PlantStore,
  PlantStoreError,
  RateLimitError,
  type Logger,
  type PlantId,
} from '@plant-store/client';
import { fakeFetch } from '../../support/fake-fetch';

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
      name: 'InternalServerError',
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

  it('a network failure is retried, then a ConnectionError with status 0 and the cause', async () => {
    const refused = new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } });
    const once = fakeFetch(refused, { status: 204 });
    await expect(store(once.fetch).deletePlant(1)).resolves.toBe(true);
    expect(once.requests).toHaveLength(2);
    const always = fakeFetch(refused);
    const error = await store(always.fetch, 2)
      .deletePlant(1)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).not.toBeInstanceOf(ConnectionTimeoutError);
    expect(error).toMatchObject({ name: 'ConnectionError', status: 0 });
    expect((error as Error).cause).toBe(refused);
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

describe('the token', () => {
  it.each([
    ['a line break', `${TOKEN}\r\nx-injected: 1`],
    ['a space', `${TOKEN} `],
    ['a non-ASCII letter', `${TOKEN}é`],
  ])('with %s is refused when the client is built, without showing it', (_, token) => {
    let error: unknown;
    try {
      new PlantStore({ baseUrl: 'https://api.example', token });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toMatch(/^token must be a bearer token/);
    expect((error as Error).message).not.toContain(TOKEN);
  });

  it.each([
    ['unset (an environment variable that is not)', undefined],
    ['empty', ''],
  ])('%s is refused in one line that says no token was given', (_, token) => {
    expect(
      () => new PlantStore({ baseUrl: 'https://api.example', token: token as string }),
    ).toThrow(new TypeError('no token given: token must be a bearer token (pst_…)'));
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
    const error = await store(fetch, 0)
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
    const client = store(fetch);
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
    const page = (await store(fetch).listPage()) as unknown as Record<string, unknown>;
    expect(page).toEqual({
      plants: [{ id: 9007199254740993n, name: 'a' }],
      count: JSON.parse('9007199254740993'),
      ratio: 0.1,
    });
  });
});

/** A `fetch` that never answers: it rejects only when the request's signal aborts. */
function hangingFetch() {
  let calls = 0;
  const fetch = (request: Request) => {
    calls++;
    return new Promise<Response>((_, reject) => {
      request.signal.addEventListener('abort', () => reject(request.signal.reason), {
        once: true,
      });
    });
  };
  return { fetch, calls: () => calls };
}

describe('timeouts', () => {
  it('each attempt has its own timeout; after the last, a ConnectionTimeoutError', async () => {
    const hang = hangingFetch();
    const client = new PlantStore({
      baseUrl: 'https://api.example',
      token: TOKEN,
      fetch: hang.fetch,
      timeout: 20,
      retry: { retries: 2, baseDelayMs: 1 },
      logLevel: 'off',
    });
    const error = await client.getPlant(1).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionTimeoutError);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).toMatchObject({ status: 0 });
    expect((error as Error).message).toContain('timed out after 20 ms, on each of 3 attempts');
    expect(hang.calls()).toBe(3);
  });

  it('a call’s timeout and retry replace the client’s for that call only', async () => {
    const hang = hangingFetch();
    const client = new PlantStore({
      baseUrl: 'https://api.example',
      token: TOKEN,
      fetch: hang.fetch,
      timeout: 60_000,
      retry: { retries: 5, baseDelayMs: 1 },
      logLevel: 'off',
    });
    const error = await client
      .getPlant(1, { timeout: 10, retry: { retries: 1 } })
      .catch((e: unknown) => e);
    expect((error as Error).message).toContain('timed out after 10 ms, on each of 2 attempts');
    expect(hang.calls()).toBe(2);
  });

  it('an invalid timeout is a TypeError, on the client or on a call', async () => {
    expect(() => new PlantStore({ baseUrl: 'https://a', token: TOKEN, timeout: 0 })).toThrow(
      'timeout must be a positive integer of milliseconds',
    );
    const { fetch, requests } = fakeFetch({ status: 200, body: '{}' });
    await expect(store(fetch).getPlant(1, { timeout: -1 })).rejects.toThrow(TypeError);
    expect(requests).toHaveLength(0);
  });

  it('a caller’s abort is the signal’s own reason, not a timeout, and ends the retries', async () => {
    const hang = hangingFetch();
    const client = new PlantStore({ baseUrl: 'https://a', token: TOKEN, fetch: hang.fetch });
    const controller = new AbortController();
    const call = client.getPlant(1, { signal: controller.signal });
    const reason = new Error('the user left');
    setTimeout(() => controller.abort(reason), 10);
    await expect(call).rejects.toBe(reason);
    expect(hang.calls()).toBe(1);
  });
});

describe('per-call options', () => {
  it('headers: the client’s, then the call’s over them; the token always', async () => {
    const { fetch, requests } = fakeFetch({ status: 200, body: '{"id":1,"name":"a"}' });
    const client = new PlantStore({
      baseUrl: 'https://api.example',
      token: TOKEN,
      fetch,
      headers: { 'x-app': 'shop', 'x-trace-id': 'client' },
    });
    await client.getPlant(1, { headers: { 'x-trace-id': 'call-1' } });
    await client.getPlant(1);
    expect(requests.map((r) => [r.headers.get('x-app'), r.headers.get('x-trace-id')])).toEqual([
      ['shop', 'call-1'],
      ['shop', 'client'],
    ]);
    expect(requests[0]!.headers.get('authorization')).toBe(`Bearer ${TOKEN}`);
  });

  it('retry: members given replace the client’s; no retries for one call', async () => {
    const unavailable = { status: 503, body: '{"error":503,"message":"x"}' };
    const { fetch, requests } = fakeFetch(unavailable);
    const client = store(fetch, 3);
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
    const client = store(fetch);
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
    const call = store(fetch).createPlant({ id: 1, name: 'a' });
    expect(call).toBeInstanceOf(Promise);
    await expect(call.withResponse()).rejects.toBeInstanceOf(ConflictError);
    await expect(call).rejects.toBeInstanceOf(ConflictError);
  });
});

describe('pages', () => {
  const three = () =>
    fakeFetch(
      { status: 200, body: '{"plants":[{"id":1,"name":"a"}],"next":"c1"}' },
      { status: 200, body: '{"plants":[{"id":2,"name":"b"}],"next":"c2"}' },
      { status: 200, body: '{"plants":[{"id":3,"name":"c"}]}' },
    );

  it('pages() yields each page with its next; a walk resumes from a saved cursor', async () => {
    const { fetch, requests } = three();
    const client = store(fetch);
    let saved: string | undefined;
    for await (const page of client.pages({ pageSize: 1 })) {
      expect(page.plants).toHaveLength(1);
      saved = page.next;
      break; // a crash after the first page
    }
    expect(saved).toBe('c1');
    const rest: bigint[] = [];
    for await (const plant of client.listPlants({ pageSize: 1, cursor: saved }))
      rest.push(plant.id);
    expect(rest).toEqual([2n, 3n]);
    expect(requests.map((r) => new URL(r.url).search)).toEqual([
      '?limit=1',
      '?limit=1&cursor=c1',
      '?limit=1&cursor=c2',
    ]);
  });

  it('listPlants({ tag }) keeps the tag on every page, percent-encoded, with the cursors', async () => {
    const { fetch, requests } = three();
    const ids: bigint[] = [];
    for await (const plant of store(fetch).listPlants({ tag: 'two words/ü', pageSize: 2 }))
      ids.push(plant.id);
    expect(ids).toEqual([1n, 2n, 3n]);
    expect(requests.map((r) => new URL(r.url).search)).toEqual([
      '?limit=2&tag=two%20words%2F%C3%BC',
      '?limit=2&tag=two%20words%2F%C3%BC&cursor=c1',
      '?limit=2&tag=two%20words%2F%C3%BC&cursor=c2',
    ]);
  });

  it('the call options reach every page’s request', async () => {
    const { fetch, requests } = three();
    const pages = [];
    for await (const page of store(fetch).pages({ headers: { 'x-trace-id': 'walk' } })) {
      pages.push(page);
    }
    expect(pages.map((page) => page.next)).toEqual(['c1', 'c2', undefined]);
    expect(new Set(requests.map((r) => r.headers.get('x-trace-id')))).toEqual(new Set(['walk']));
  });
});

describe('deletePlant after a retry', () => {
  const gone = { status: 404, body: '{"error":404,"message":"no plant with id 5"}' };

  it('is true when an earlier attempt’s answer was lost: that attempt deleted it', async () => {
    const lost = fakeFetch(new TypeError('fetch failed', { cause: { code: 'ECONNRESET' } }), gone);
    await expect(store(lost.fetch).deletePlant(5)).resolves.toBe(true);
    expect(lost.requests).toHaveLength(2);
    const gateway = fakeFetch({ status: 503, body: '{"message":"Service Unavailable"}' }, gone);
    await expect(store(gateway.fetch).deletePlant(5)).resolves.toBe(true);
  });

  it('is false when every earlier answer proves nothing was deleted (429, the store’s 503)', async () => {
    const { fetch, requests } = fakeFetch(
      { status: 429, body: '{"message":"Too Many Requests"}' },
      { status: 503, body: '{"error":503,"message":"the store is unavailable"}' },
      gone,
    );
    await expect(store(fetch).deletePlant(5)).resolves.toBe(false);
    expect(requests).toHaveLength(3);
  });
});

describe('logging', () => {
  const recorder = () => {
    const lines: [string, string][] = [];
    const logger: Logger = {
      debug: (message) => lines.push(['debug', message]),
      info: (message) => lines.push(['info', message]),
      warn: (message) => lines.push(['warn', message]),
      error: (message) => lines.push(['error', message]),
    };
    return { logger, lines };
  };

  it('a retry is a warning that says why and how long it waits; the token is never in a line', async () => {
    const { logger, lines } = recorder();
    const { fetch } = fakeFetch(
      { status: 503, body: '{"error":503,"message":"x"}', headers: { 'apigw-requestid': 'q1' } },
      new TypeError('fetch failed', { cause: { code: 'ECONNRESET' } }),
      { status: 200, body: '{"id":1,"name":"a"}' },
    );
    const client = new PlantStore({
      baseUrl: 'https://api.example',
      token: TOKEN,
      fetch,
      retry: { baseDelayMs: 1 },
      logger,
    });
    await client.getPlant(1);
    expect(lines.map(([level]) => level)).toEqual(['warn', 'warn']);
    expect(lines[0]![1]).toMatch(
      /^plant-store: GET https:\/\/api.example\/plants\/1 answered 503 \(apigw-requestid q1\); retrying in \d+ ms \(attempt 2 of 4\)$/,
    );
    expect(lines[1]![1]).toMatch(/got no answer \(fetch failed: ECONNRESET\); retrying in \d+ ms/);
    expect(JSON.stringify(lines)).not.toContain(TOKEN.slice(4));
  });

  it('debug shows each request and answer line; off shows nothing', async () => {
    const { logger, lines } = recorder();
    const { fetch } = fakeFetch({ status: 200, body: '{"id":1,"name":"a"}' });
    const options = { baseUrl: 'https://api.example', token: TOKEN, fetch, logger };
    await new PlantStore({ ...options, logLevel: 'debug' }).getPlant(1);
    expect(lines.map(([level, line]) => `${level} ${line.replace(/\d+ ms/, 'N ms')}`)).toEqual([
      'debug plant-store: GET https://api.example/plants/1 (attempt 1 of 4)',
      'debug plant-store: GET https://api.example/plants/1 answered 200 in N ms',
    ]);
    lines.length = 0;
    const failing = fakeFetch({ status: 503, body: '{"error":503,"message":"x"}' });
    await new PlantStore({
      ...options,
      fetch: failing.fetch,
      logLevel: 'off',
      retry: { retries: 1, baseDelayMs: 1 },
    })
      .getPlant(1)
      .catch(() => undefined);
    expect(lines).toEqual([]);
    expect(() => new PlantStore({ ...options, logLevel: 'loud' as 'off' })).toThrow(TypeError);
  });

  it('an error never carries the token, even when a body repeats it', async () => {
    const { fetch } = fakeFetch({
      status: 400,
      body: JSON.stringify({ error: 400, message: `bad header Bearer ${TOKEN}` }),
    });
    const error = await store(fetch)
      .getPlant(1)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as Error).message).not.toContain(TOKEN);
  });
});
