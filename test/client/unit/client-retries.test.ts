/**
 * `@plant-store/client` when a deployment fails: which answers and faults are retried and how
 * long between tries, each attempt's timeout and the caller's abort, and what a delete or a
 * change retried after a lost answer reports. The faults are a `fetch` double's (test/support/fake-fetch.ts).
 */
import {
  ConnectionError,
  ConnectionTimeoutError,
  type InternalServerError,
  PermissionDeniedError,
  PlantStore,
  PreconditionFailedError,
} from '@plant-store/client';
import { fakeFetch, fakeStore, TEST_TOKEN } from '../../support/fake-fetch';

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
    await expect(fakeStore(fetch).getPlant(1)).resolves.toEqual({ id: 1n, name: 'a' });
    expect(requests).toHaveLength(3);
  });

  it('a 503 that lasts surfaces as a PlantStoreError with retryAfter, after the retries', async () => {
    const { fetch, requests } = fakeFetch(unavailable);
    await expect(fakeStore(fetch, 2).createPlant({ id: 1, name: 'a' })).rejects.toMatchObject({
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
    await expect(fakeStore(gateway.fetch, 1).getPlant(1)).rejects.toMatchObject({ status: 500 });
    expect(gateway.requests).toHaveLength(2);
    const bug = fakeFetch({ status: 500, body: '{"error":500,"message":"internal error"}' });
    await expect(fakeStore(bug.fetch).getPlant(1)).rejects.toMatchObject({ status: 500 });
    expect(bug.requests).toHaveLength(1);
    const invalid = fakeFetch({ status: 400, body: '{"error":400,"message":"name: required"}' });
    await expect(fakeStore(invalid.fetch).getPlant(1)).rejects.toMatchObject({ status: 400 });
    expect(invalid.requests).toHaveLength(1);
  });

  it('an answer that is not the service’s Error (a proxy’s HTML 500) is retried and reported as from the gateway', async () => {
    const html = '<html><head><title>500 Internal Server Error</title></head><body>…</body></html>';
    const { fetch, requests } = fakeFetch({
      status: 500,
      body: html,
      headers: { 'content-type': 'text/html' },
    });
    await expect(fakeStore(fetch, 1).getPlant(1)).rejects.toMatchObject({
      name: 'InternalServerError',
      status: 500,
      fromGateway: true,
      message: 'HTTP 500: 500 Internal Server Error',
    });
    expect(requests).toHaveLength(2);
  });

  it('a network failure is retried, then a ConnectionError with status 0 and the cause', async () => {
    const refused = new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } });
    const once = fakeFetch(refused, { status: 204 });
    await expect(fakeStore(once.fetch).deletePlant(1)).resolves.toBe(true);
    expect(once.requests).toHaveLength(2);
    const always = fakeFetch(refused);
    const error = await fakeStore(always.fetch, 2)
      .deletePlant(1)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).not.toBeInstanceOf(ConnectionTimeoutError);
    expect(error).toMatchObject({ name: 'ConnectionError', status: 0 });
    expect((error as Error).cause).toBe(refused);
    expect((error as Error).message).toContain('ECONNREFUSED');
    expect(always.requests).toHaveLength(3);
  });

  it('a request the platform will not build is thrown as it is: not sent, not retried', async () => {
    const refusal = new TypeError('the platform refuses this request');
    const Refusing = function () {
      throw refusal;
    } as unknown as typeof Request;
    // Node defines `Request` as a lazy getter, then as a value: put back whichever it is.
    const original = Object.getOwnPropertyDescriptor(globalThis, 'Request')!;
    Object.defineProperty(globalThis, 'Request', { value: Refusing, configurable: true });
    try {
      const { fetch, requests } = fakeFetch({ status: 200, body: '{"id":1,"name":"a"}' });
      const warnings: string[] = [];
      const client = new PlantStore({
        baseUrl: 'https://api.example',
        token: TEST_TOKEN,
        fetch,
        logger: { ...console, warn: (message: string) => warnings.push(message) },
      });
      await expect(client.getPlant(1)).rejects.toBe(refusal);
      expect(requests).toHaveLength(0);
      expect(warnings).toEqual([]);
    } finally {
      Object.defineProperty(globalThis, 'Request', original);
    }
  });

  it('Retry-After is delay-seconds or an HTTP-date of any of its forms; any other value is treated as absent', async () => {
    const retryAfter = async (value: string) => {
      const { fetch } = fakeFetch({ ...unavailable, headers: { 'retry-after': value } });
      const error = await fakeStore(fetch, 0)
        .getPlant(1)
        .catch((e: unknown) => e);
      return (error as InternalServerError).retryAfter;
    };
    expect(await retryAfter('120')).toBe(120);
    expect(await retryAfter(' 0 ')).toBe(0);
    const inAnHour = new Date(Date.now() + 3_600_000).toUTCString();
    expect(await retryAfter(inAnHour)).toBeGreaterThan(3_500);
    expect(await retryAfter(inAnHour)).toBeLessThanOrEqual(3_600);
    expect(await retryAfter('Sun, 06 Nov 1994 08:49:37 GMT')).toBe(0);
    // The obsolete forms: RFC 850's and asctime's (GMT, though it says no zone).
    expect(await retryAfter('Sunday, 06-Nov-94 08:49:37 GMT')).toBe(0);
    const asctime = new Date(Date.now() + 3_600_000)
      .toUTCString()
      .replace(/^(\w{3}), (\d\d) (\w{3}) (\d{4}) ([\d:]+) GMT$/, '$1 $3 $2 $5 $4');
    expect(await retryAfter(asctime)).toBeGreaterThan(3_500);
    expect(await retryAfter(asctime)).toBeLessThanOrEqual(3_600);
    for (const value of ['1.5', '-1', '+5', '1e3', 'soon', '2030-01-01', '9'.repeat(400)]) {
      expect(await retryAfter(value)).toBeUndefined();
    }
  });

  it('a JSON error of a proxy in front (an `error` that is no status) is no answer of the service', async () => {
    const proxy = {
      status: 503,
      body: '{"status":503,"error":"Service Unavailable","path":"/plants/7"}',
      headers: { 'content-type': 'application/json' },
    };
    const { fetch, requests } = fakeFetch(proxy, {
      status: 404,
      body: '{"error":404,"message":"no plant with id 7"}',
    });
    // Behind the proxy's 503 the delete may have been made: its retry's 404 is that delete's.
    await expect(fakeStore(fetch).deletePlant(7)).resolves.toBe(true);
    expect(requests).toHaveLength(2);
    const refused = await fakeStore(fakeFetch(proxy).fetch, 0)
      .getPlant(7)
      .catch((e: unknown) => e);
    expect(refused).toMatchObject({ status: 503, fromGateway: true });
  });

  it('the service’s 503 to a write may follow the write made: a delete retried to 404 answers true', async () => {
    const { fetch, requests } = fakeFetch(
      { status: 503, body: '{"error":503,"message":"Service Unavailable"}' },
      { status: 404, body: '{"error":404,"message":"no plant with id 7"}' },
    );
    await expect(fakeStore(fetch).deletePlant(7)).resolves.toBe(true);
    expect(requests).toHaveLength(2);
    // To a read it proves nothing was done: a read has nothing to do.
    const read = fakeFetch(
      { status: 503, body: '{"error":503,"message":"Service Unavailable"}' },
      { status: 404, body: '{"error":404,"message":"no plant with id 7"}' },
    );
    await expect(fakeStore(read.fetch).getPlant(7)).rejects.toMatchObject({ status: 404 });
  });

  it('a fetch that answers no Response is thrown at once, not retried as a lost answer', async () => {
    let calls = 0;
    const fetch = (() => {
      calls++;
      return undefined;
    }) as unknown as typeof globalThis.fetch;
    await expect(fakeStore(fetch).getPlant(1)).rejects.toThrow(
      new TypeError('fetch resolved to undefined, not a Response'),
    );
    expect(calls).toBe(1);
  });

  it('a Retry-After beyond maxDelayMs is not waited for', async () => {
    const { fetch, requests } = fakeFetch({ ...unavailable, headers: { 'retry-after': '3600' } });
    await expect(fakeStore(fetch).getPlant(1)).rejects.toMatchObject({
      status: 503,
      retryAfter: 3600,
    });
    expect(requests).toHaveLength(1);
  });

  it('an abort stops the waits between retries: no request after it', async () => {
    const { fetch, requests } = fakeFetch({ ...unavailable, headers: { 'retry-after': '10' } });
    const controller = new AbortController();
    const client = new PlantStore({
      baseUrl: 'https://api.example',
      token: TEST_TOKEN,
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

describe('deletePlant after a retry', () => {
  const gone = { status: 404, body: '{"error":404,"message":"no plant with id 5"}' };

  it('is true when an earlier attempt’s answer was lost: that attempt deleted it', async () => {
    const lost = fakeFetch(new TypeError('fetch failed', { cause: { code: 'ECONNRESET' } }), gone);
    await expect(fakeStore(lost.fetch).deletePlant(5)).resolves.toBe(true);
    expect(lost.requests).toHaveLength(2);
    const gateway = fakeFetch({ status: 503, body: '{"message":"Service Unavailable"}' }, gone);
    await expect(fakeStore(gateway.fetch).deletePlant(5)).resolves.toBe(true);
  });

  it('is false when every earlier answer proves nothing was deleted (429)', async () => {
    const { fetch, requests } = fakeFetch(
      { status: 429, body: '{"message":"Too Many Requests"}' },
      { status: 429, body: '{"message":"Too Many Requests"}' },
      gone,
    );
    await expect(fakeStore(fetch).deletePlant(5)).resolves.toBe(false);
    expect(requests).toHaveLength(3);
  });
});

describe('updatePlant and patchPlant after a retry', () => {
  const reset = () => new TypeError('fetch failed', { cause: { code: 'ECONNRESET' } });
  const moved = (version: number) => ({
    status: 412,
    body: `{"error":412,"message":"plant 5 is at version ${version}"}`,
    headers: { etag: `"${version}"` },
  });
  const read = (body: string, version: number) => ({
    status: 200,
    body,
    headers: { etag: `"${version}"` },
  });

  it('a 412 its own lost attempt caused is the answer (read again: one version on, as sent); any other stands', async () => {
    const put = fakeFetch(reset(), moved(4), read('{"id":5,"name":"Fern","tag":"new"}', 4));
    const changed = await fakeStore(put.fetch).updatePlant(
      5,
      { name: 'Fern', tag: 'new' },
      { ifMatch: 3 },
    );
    expect([changed, changed.version]).toEqual([{ id: 5n, name: 'Fern', tag: 'new' }, 4]);
    expect(put.requests.map((r) => r.method)).toEqual(['PUT', 'PUT', 'GET']);

    const patch = fakeFetch(
      { status: 503, body: '{"message":"Service Unavailable"}' },
      moved(8),
      read('{"id":5,"name":"Fern"}', 8),
    );
    const patched = await fakeStore(patch.fetch).patchPlant(5, { tag: null }, { ifMatch: [2, 7] });
    expect([patched, patched.version]).toEqual([{ id: 5n, name: 'Fern' }, 8]);

    // The 412 stands when the plant is not what this call made, or no attempt may have acted.
    // Another version than one past ifMatch: someone else moved the plant.
    const later = fakeFetch(reset(), moved(5), read('{"id":5,"name":"Fern","tag":"new"}', 5));
    await expect(
      fakeStore(later.fetch).updatePlant(5, { name: 'Fern', tag: 'new' }, { ifMatch: 3 }),
    ).rejects.toBeInstanceOf(PreconditionFailedError);
    // One version on, but other members: another writer's change, not ours.
    const other = fakeFetch(reset(), moved(4), read('{"id":5,"name":"Fern","tag":"old"}', 4));
    await expect(
      fakeStore(other.fetch).patchPlant(5, { tag: 'new' }, { ifMatch: 3 }),
    ).rejects.toMatchObject({ name: 'PreconditionFailedError', currentVersion: 4 });
    // PUT removes what it does not send: a tag still there is not this PUT's work.
    const kept = fakeFetch(reset(), moved(4), read('{"id":5,"name":"Fern","tag":"t"}', 4));
    await expect(
      fakeStore(kept.fetch).updatePlant(5, { name: 'Fern' }, { ifMatch: 3 }),
    ).rejects.toBeInstanceOf(PreconditionFailedError);
    // The first answer proves nothing was written (429): the 412 is the truth, nothing is read.
    const proven = fakeFetch({ status: 429, body: '{"message":"Too Many Requests"}' }, moved(4));
    await expect(
      fakeStore(proven.fetch).patchPlant(5, { tag: 'new' }, { ifMatch: 3 }),
    ).rejects.toBeInstanceOf(PreconditionFailedError);
    expect(proven.requests.map((r) => r.method)).toEqual(['PATCH', 'PATCH']);
    // A token that may not read: the read is refused, and the 412 stands.
    const writer = fakeFetch(reset(), moved(4), {
      status: 403,
      body: '{"error":403,"message":"the token lacks the scope plants:read"}',
    });
    const refused = await fakeStore(writer.fetch)
      .patchPlant(5, { tag: 'new' }, { ifMatch: 3 })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(PreconditionFailedError);
    expect(refused).toMatchObject({
      status: 412,
      currentVersion: 4,
      message:
        "plant 5 is at version 4 (perhaps by this call's own lost attempt: the token may not read the plant to tell)",
    });
    expect((refused as Error).cause).toBeInstanceOf(PermissionDeniedError);
    // Further on than one past ifMatch: another writer's, said as the API said it.
    const past = fakeFetch(reset(), moved(6), {
      status: 403,
      body: '{"error":403,"message":"the token lacks the scope plants:read"}',
    });
    await expect(
      fakeStore(past.fetch).updatePlant(5, { name: 'Fern' }, { ifMatch: 3 }),
    ).rejects.toMatchObject({
      name: 'PreconditionFailedError',
      currentVersion: 6,
      message: 'plant 5 is at version 6',
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

/** A client over `hangingFetch` with the client's `timeout` and `retries`, logging nothing. */
function hangingClient(timeout: number, retries: number) {
  const hang = hangingFetch();
  const client = new PlantStore({
    baseUrl: 'https://api.example',
    token: TEST_TOKEN,
    fetch: hang.fetch,
    timeout,
    retry: { retries, baseDelayMs: 1 },
    logLevel: 'off',
  });
  return { client, hang };
}

describe('timeouts', () => {
  it('each attempt has its own timeout; after the last, a ConnectionTimeoutError', async () => {
    const { client, hang } = hangingClient(20, 2);
    const error = await client.getPlant(1).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionTimeoutError);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).toMatchObject({ status: 0 });
    expect((error as Error).message).toContain('timed out after 20 ms, on each of 3 attempts');
    expect(hang.calls()).toBe(3);
  });

  it('a call’s timeout and retry replace the client’s for that call only', async () => {
    const { client, hang } = hangingClient(60_000, 5);
    const error = await client
      .getPlant(1, { timeout: 10, retry: { retries: 1 } })
      .catch((e: unknown) => e);
    expect((error as Error).message).toContain('timed out after 10 ms, on each of 2 attempts');
    expect(hang.calls()).toBe(2);
  });

  it('an invalid timeout is a TypeError, on the client or on a call', async () => {
    expect(() => new PlantStore({ baseUrl: 'https://a', token: TEST_TOKEN, timeout: 0 })).toThrow(
      'timeout must be a positive integer of milliseconds',
    );
    const { fetch, requests } = fakeFetch({ status: 200, body: '{}' });
    await expect(fakeStore(fetch).getPlant(1, { timeout: -1 })).rejects.toThrow(TypeError);
    expect(requests).toHaveLength(0);
  });

  it('a fetch that ignores the request’s signal is still held to the timeout and the caller’s abort', async () => {
    let calls = 0;
    const deaf = () => {
      calls++;
      return new Promise<Response>(() => undefined);
    };
    const options = {
      baseUrl: 'https://a',
      token: TEST_TOKEN,
      fetch: deaf,
      logLevel: 'off' as const,
    };
    const client = new PlantStore({
      ...options,
      timeout: 20,
      retry: { retries: 1, baseDelayMs: 1 },
    });
    const error = await client.getPlant(1).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionTimeoutError);
    expect((error as Error).message).toContain('timed out after 20 ms, on each of 2 attempts');
    expect(calls).toBe(2);

    const controller = new AbortController();
    const call = new PlantStore(options).getPlant(1, { signal: controller.signal });
    const reason = new Error('the user left');
    setTimeout(() => controller.abort(reason), 10);
    await expect(call).rejects.toBe(reason);
  });

  it('a body that never ends, from a fetch that ignores the signal, times out', async () => {
    const endless = async () =>
      new Response(new ReadableStream({ pull: () => new Promise<void>(() => undefined) }), {
        headers: { 'content-type': 'application/json' },
      });
    const client = new PlantStore({
      baseUrl: 'https://a',
      token: TEST_TOKEN,
      fetch: endless,
      timeout: 20,
      retry: { retries: 0 },
    });
    await expect(client.getPlant(1)).rejects.toBeInstanceOf(ConnectionTimeoutError);
  });

  it('a caller’s abort is the signal’s own reason, not a timeout, and ends the retries', async () => {
    const hang = hangingFetch();
    const client = new PlantStore({ baseUrl: 'https://a', token: TEST_TOKEN, fetch: hang.fetch });
    const controller = new AbortController();
    const call = client.getPlant(1, { signal: controller.signal });
    const reason = new Error('the user left');
    setTimeout(() => controller.abort(reason), 10);
    await expect(call).rejects.toBe(reason);
    expect(hang.calls()).toBe(1);
  });
});
