/**
 * `@plant-store/client` over real HTTP on loopback against a stub that misbehaves
 * (support/client-stub.ts): a server that hangs, one that stalls a body, every status with a
 * request id, a redirect, pages, odd numbers. The same probes run from the packed tarball on Node
 * 20 and 24: e2e/client-package.test.ts.
 */
import {
  ConnectionError,
  ConnectionTimeoutError,
  InternalServerError,
  PlantStore,
  PlantStoreError,
  RateLimitError,
  type Logger,
  type PlantStoreOptions,
} from '@plant-store/client';
import { startClientStub, type ClientStub } from '../../support/client-stub';

const TOKEN = 'pst_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB';
let stub: ClientStub;
beforeAll(async () => {
  stub = await startClientStub();
});
afterAll(() => stub.close());

const lines: string[] = [];
const logger: Logger = {
  debug: (m) => lines.push(`debug ${m}`),
  info: (m) => lines.push(`info ${m}`),
  warn: (m) => lines.push(`warn ${m}`),
  error: (m) => lines.push(`error ${m}`),
};
// Attempts are counted as the client sends them: a request aborted by its timeout may never
// reach the stub's handler.
const sent = new Map<string, number>();
const countingFetch = (request: Request) => {
  const path = new URL(request.url).pathname;
  sent.set(path, (sent.get(path) ?? 0) + 1);
  return fetch(request);
};
const client = (behaviour: string, options: Partial<PlantStoreOptions> = {}) =>
  new PlantStore({
    baseUrl: `${stub.url}/${behaviour}`,
    token: TOKEN,
    retry: { baseDelayMs: 1 },
    logger,
    fetch: countingFetch,
    ...options,
  });
const attempts = (path: string) => sent.get(path) ?? 0;

it('a server that accepts and never answers: each attempt times out, then ConnectionTimeoutError', async () => {
  const error = await client('hang', { timeout: 100, retry: { retries: 2, baseDelayMs: 1 } })
    .getPlant(1)
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ConnectionTimeoutError);
  expect(error).toBeInstanceOf(ConnectionError);
  expect(error).toBeInstanceOf(PlantStoreError);
  expect(attempts('/hang/plants/1')).toBe(3);
  expect(lines.filter((l) => l.startsWith('warn') && l.includes('/hang/plants/1'))).toHaveLength(2);
});

it('a body that stalls after the headers times out too: the timeout covers the body', async () => {
  const error = await client('stall', { retry: { retries: 1, baseDelayMs: 1 } })
    .getPlant(2, { timeout: 100 })
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ConnectionTimeoutError);
  expect((error as Error).message).toContain('timed out after 100 ms, on each of 2 attempts');
  expect(attempts('/stall/plants/2')).toBe(2);
});

it('a timed-out attempt is retried like a lost connection, and the retry’s answer is the call’s', async () => {
  // The timeout bounds the retry's answer too: long enough for a busy machine's loopback.
  await expect(client('hang-once', { timeout: 3_000 }).getPlant(3)).resolves.toEqual({
    id: 1n,
    name: 'after a timeout',
  });
  expect(attempts('/hang-once/plants/3')).toBe(2);
});

it('per call: a shorter timeout and no retries, for that call only', async () => {
  const store = client('hang', { timeout: 30_000 });
  const error = await store
    .getPlant(4, { timeout: 50, retry: { retries: 0 } })
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ConnectionTimeoutError);
  expect(attempts('/hang/plants/4')).toBe(1);
});

it('per call: headers over the client’s, the token always', async () => {
  const store = client('numbers', { headers: { 'x-app': 'shop', 'x-trace-id': 'client' } });
  await store.getPlant(8, { headers: { 'x-trace-id': 'trace-8' } });
  await store.getPlant(9);
  const seen = ['/numbers/plants/8', '/numbers/plants/9'].map((path) => {
    const { headers } = stub.requests.get(path)![0]!;
    return [headers['x-app'], headers['x-trace-id'], headers.authorization];
  });
  expect(seen).toEqual([
    ['shop', 'trace-8', `Bearer ${TOKEN}`],
    ['shop', 'client', `Bearer ${TOKEN}`],
  ]);
});

it('each status: its class, its request id and headers; 429 and 503 retried first', async () => {
  for (const status of [400, 401, 403, 404, 409, 413, 429, 500, 503]) {
    const error = (await client('status', { retry: { retries: 1, baseDelayMs: 1 } })
      .getPlant(status)
      .catch((e: unknown) => e)) as PlantStoreError;
    expect(error).toBeInstanceOf(PlantStoreError);
    expect(error.status).toBe(status);
    expect(error.requestId).toMatch(/^stub-\d+$/);
    expect(error.headers.get('apigw-requestid')).toBe(error.requestId);
    expect(attempts(`/status/plants/${status}`)).toBe(status === 429 || status === 503 ? 2 : 1);
  }
  await expect(client('status').getPlant(429, { retry: { retries: 0 } })).rejects.toBeInstanceOf(
    RateLimitError,
  );
  await expect(client('status').getPlant(500)).rejects.toBeInstanceOf(InternalServerError);
});

it('a redirect is not followed: a create never becomes a GET answered as success', async () => {
  const error = await client('redirect')
    .createPlant({ id: 5, name: 'x' })
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ConnectionError);
  expect((error as Error).message).toContain('redirect');
  expect(attempts('/redirect/plants')).toBe(1); // not retried
  expect(stub.requests.has('/landing')).toBe(false);
});

it('pages: each page with next; listPlants and pages resume from a cursor', async () => {
  const store = client('pages');
  const pages = [];
  for await (const page of store.pages({ pageSize: 2 })) pages.push(page);
  expect(pages.map((p) => [p.plants.length, p.next])).toEqual([
    [2, '2'],
    [2, '4'],
    [1, undefined],
  ]);
  const rest: bigint[] = [];
  for await (const plant of store.listPlants({ pageSize: 2, cursor: '2' })) rest.push(plant.id);
  expect(rest).toEqual([9007199254740995n, 9007199254740996n, 9007199254740997n]);
  const { data, response } = await store.listPage({ limit: 1 }).withResponse();
  expect(data.next).toBe('1');
  expect(response.headers.get('apigw-requestid')).toMatch(/^stub-\d+$/);
});

it('numbers: ids as bigints, others as JSON.parse reads them; a non-integer id is a PlantStoreError', async () => {
  const plant = (await client('numbers').getPlant(6)) as unknown as Record<string, unknown>;
  expect(plant).toEqual({
    id: -9223372036854775808n,
    name: 'n',
    big: Number('12345678901234567890'),
    small: 0,
    exact: 0.1,
  });
  const error = await client('malformed')
    .getPlant(7)
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(PlantStoreError);
  expect(error).toMatchObject({ status: 200, message: expect.stringContaining('not an int64') });
});

it('the log: retries with why and wait, debug lines, never the token', async () => {
  expect(lines.some((l) => /^warn .* timed out after 100 ms; retrying in \d+ ms/.test(l))).toBe(
    true,
  );
  expect(
    lines.some((l) => /^warn .* answered 503 \(apigw-requestid stub-\d+\); retrying/.test(l)),
  ).toBe(true);
  expect(lines.join('\n')).not.toContain(TOKEN.slice(4));
});
