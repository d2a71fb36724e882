/**
 * Real HTTP against the running local runtime (`startLocal`, as `npm start` runs it): the
 * contract's gateway table and POST /plants table end to end with a CLI-made token, the
 * authorizer cache, concurrency, and persistence across a restart.
 */
import { PlantStore } from '@plant-store/client';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocal, type LocalOptions, type LocalService } from '../../../lib/local/runtime';
import { runTokenCli } from '../../../lib/operator/token-cli';
import { runCommand } from '../../support/run-cli';
import { uncheckedFetch } from '../../support/http';
import { ALLOWED_HEADERS, ALLOWED_METHODS, unroutedMethods } from '../../support/routes';
import { takenMessage } from '../../../lambda/create-plant/create-plant';

const dataDir = mkdtempSync(join(tmpdir(), 'plant-store-e2e-'));
const options: LocalOptions = {
  port: 0,
  dbPort: 0,
  dataDir,
  memory: false,
  authCacheTtlSeconds: 1,
  // The races below send 20 requests at once: one sandbox each, none throttled.
  concurrency: 20,
  log: () => undefined,
};
let service: LocalService;
let token: string;

async function post(body: string, headers: Record<string, string> = {}, path = '/plants') {
  const response = await fetch(`${service.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
    body,
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

const cliEnvironment = () => ({
  ...process.env,
  PLANT_STORE_DB_PORT: String(service.dbPort),
  PLANT_STORE_DATA_DIR: dataDir,
});
const cli = (...args: string[]) => runCommand('token', args, cliEnvironment());

beforeAll(async () => {
  service = await startLocal(options);
  const created = await cli('create', '--name', 'e2e');
  expect(created.code).toBe(0);
  token = created.stdout.trim();
}, 300_000);
afterAll(async () => {
  await service?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('answers from the gateway', () => {
  it.each([
    ['no Authorization header', { authorization: '' }, 401, '{"message":"Unauthorized"}'],
    [
      'an unknown token',
      { authorization: 'Bearer pst_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' },
      403,
      '{"message":"Forbidden"}',
    ],
    ['a malformed token', { authorization: 'Bearer nope' }, 403, '{"message":"Forbidden"}'],
    ['another scheme', { authorization: 'Basic dXNlcjpwYXNz' }, 403, '{"message":"Forbidden"}'],
  ])('%s: %i', async (_, headers, status, body) => {
    const answer = await post('{"id":1,"name":"a"}', headers);
    expect(answer.status).toBe(status);
    expect(answer.text).toBe(body);
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(answer.headers.get('apigw-requestid')).toMatch(/^\S+=$/);
    expect(answer.headers.get('access-control-allow-origin')).toBe('*');
  });

  it.each([['POST', '/plants/'], ['POST', '/plant'], ...unroutedMethods(), ['POST', '/']])(
    '%s %s: 404, with or without a token',
    async (method, path) => {
      const response = await fetch(`${service.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}` },
      });
      expect(response.status).toBe(404);
      expect(await response.text()).toBe('{"message":"Not Found"}');
    },
  );

  it('GET / points to the API reference (local only: deployed, it is 404)', async () => {
    const response = await uncheckedFetch(`${service.url}/`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ docs: '/docs', openapi: '/openapi.json' });
  });

  it('answers a CORS preflight 204 without calling anything', async () => {
    const response = await fetch(`${service.url}/plants`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
    });
    expect(response.status).toBe(204);
    expect(await response.text()).toBe('');
    expect(Object.fromEntries(response.headers)).toMatchObject({
      'access-control-allow-origin': '*',
      'access-control-allow-methods': ALLOWED_METHODS,
      'access-control-allow-headers': ALLOWED_HEADERS,
      'access-control-max-age': '3600',
    });
    // A browser's read-modify-write sends If-Match: the preflight must allow it.
    expect(response.headers.get('access-control-allow-headers')?.split(',')).toEqual(
      expect.arrayContaining(['authorization', 'content-type', 'if-match']),
    );
  });

  it('refuses a payload over 10 MB', async () => {
    const answer = await post('x'.repeat(10 * 1024 * 1024 + 1));
    expect(answer.status).toBe(413);
    expect(answer.text).toBe('{"message":"Request Entity Too Large"}');
  });
});

describe('POST /plants end to end', () => {
  it('creates, retries safely and refuses a conflict, with every digit of the id', async () => {
    const created = await post('{"id":9007199254740993,"name":"Monstera","tag":"aroid","x":1}');
    expect(created).toMatchObject({ status: 200, text: '{"name":"Monstera","tag":"aroid"}' });
    expect(created.headers.get('content-type')).toBe('application/json');
    expect((await post('{"id":9007199254740993.0,"name":"Monstera","tag":"aroid"}')).status).toBe(
      200,
    );
    expect((await post('{"id":9007199254740992,"name":"Monstera","tag":"aroid"}')).status).toBe(
      200,
    );
    const conflict = await post('{"id":9007199254740993,"name":"Ficus"}');
    expect(conflict).toMatchObject({
      status: 409,
      text: JSON.stringify({ error: 409, message: takenMessage(9007199254740993n) }),
    });
  });

  it.each([
    [
      '{"id":1e19,"name":"a"}',
      {},
      400,
      'id: must be an integer from -9223372036854775808 to 9223372036854775807',
    ],
    ['{"name":5}', {}, 400, 'id: required; name: must be a string'],
    ['[]', {}, 400, 'body: must be a JSON object'],
    ['{"id":1,"name":"a","id":2}', {}, 400, 'id: appears more than once'],
    ['{"id":1,', {}, 400, 'body: must be valid JSON (expected a member name at position 8)'],
    [
      '{"id":1,"name":"a"}',
      { 'content-type': 'text/plain' },
      415,
      'content-type text/plain is not accepted; send application/json',
    ],
    [
      `{"id":1,"name":"${'a'.repeat(262_144)}"}`,
      {},
      413,
      'body: must be at most 262144 bytes; got 262162',
    ],
  ])('row %# answers its status and message', async (body, headers, status, message) => {
    const answer = await post(body, headers);
    expect(answer.status).toBe(status);
    expect(JSON.parse(answer.text)).toEqual({ error: status, message });
  });

  it('takes an application/*+json body, which the gateway passes base64-encoded', async () => {
    const answer = await post('{"id":77,"name":"Basil 🌿"}', {
      'content-type': 'application/merge-patch+json',
    });
    expect(answer).toMatchObject({ status: 200, text: '{"name":"Basil 🌿"}' });
  });

  it('20 identical concurrent creates all answer 200; 20 different ones, exactly one', async () => {
    const same = await Promise.all(
      Array.from({ length: 20 }, () => post('{"id":500,"name":"Same"}')),
    );
    expect(same.map((a) => a.status)).toEqual(Array(20).fill(200));
    const different = await Promise.all(
      Array.from({ length: 20 }, (_, i) => post(`{"id":501,"name":"n${i}"}`)),
    );
    expect(different.filter((a) => a.status === 200)).toHaveLength(1);
    expect(different.filter((a) => a.status === 409)).toHaveLength(19);
  });
});

describe('tokens', () => {
  it('the dev token works', async () => {
    const store = new PlantStore({ baseUrl: service.url, token: service.devToken });
    await expect(store.createPlant({ id: 600, name: 'dev' })).resolves.toEqual({ name: 'dev' });
    await expect(store.getPlant(600)).resolves.toEqual({ id: 600n, name: 'dev' });
  });

  it('a revoked token works until the cache TTL passes, then gets 403', async () => {
    const created = await cli('create', '--name', 'soon-revoked');
    const revocable = created.stdout.trim();
    const tokenId = /tokenId (\S+)/.exec(created.stderr)![1]!;
    const auth = { authorization: `Bearer ${revocable}` };
    // The decision is cached when the authorizer answers, after this instant: until this instant
    // plus the TTL, the gateway must answer from its cache, without asking the authorizer.
    const lastAuthorizer = () =>
      service.invocations.list().find((entry) => entry.functionName === 'authorizer')?.seq;
    const cachedAfter = performance.now();
    expect((await post('{"id":700,"name":"r"}', auth)).status).toBe(200);
    const authorized = lastAuthorizer();
    // The CLI's own code, in-process: a child process can take longer than the 1 s TTL to start
    // on a loaded machine, and the cache, not the CLI, is what this test is about.
    const io = { out: () => undefined, err: () => undefined, env: cliEnvironment() };
    expect(await runTokenCli(['revoke', tokenId], io)).toBe(0);
    const afterRevoke = await post('{"id":700,"name":"r"}', auth);
    const askedAgain = lastAuthorizer() !== authorized;
    // The authorizer is asked again only once the TTL has passed (a busy machine can take that
    // long to revoke), and then it refuses; until then the cache lets the revoked token through.
    expect(askedAgain && performance.now() < cachedAfter + 1_000).toBe(false);
    expect(afterRevoke.status).toBe(askedAgain ? 403 : 200);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(await post('{"id":700,"name":"r"}', auth)).toMatchObject({
      status: 403,
      text: '{"message":"Forbidden"}',
    });
  });
});

describe('persistence', () => {
  it('keeps plants, tokens and the dev token across a restart', async () => {
    const devToken = service.devToken;
    const store = () => new PlantStore({ baseUrl: service.url, token });
    await store().createPlant({ id: 800, name: 'Kept' });
    await service.close();
    service = await startLocal(options);
    expect(service.devToken).toBe(devToken);
    await expect(store().getPlant(800)).resolves.toEqual({ id: 800n, name: 'Kept' });
    await expect(store().createPlant({ id: 800, name: 'Kept' })).resolves.toEqual({ name: 'Kept' });
    await expect(store().createPlant({ id: 800, name: 'Other' })).rejects.toMatchObject({
      status: 409,
    });
  }, 300_000);
});
