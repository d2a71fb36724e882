/**
 * Every example in openapi.json — what /docs shows under each status — is an answer the runtime
 * gives: each is provoked on the local runtime (`npm start` in-process) and the body received is
 * compared with the example, digit for digit. The function's 500 (a bug) cannot be provoked over
 * HTTP without one, so the real create handler is given a store that throws a TypeError. Only the
 * gateway's 503 (an integration that runs past 30 s) is left out, and said to be. At the end,
 * every example the document has must have been compared.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeDocumentClient } from '../../../lambda/aws/dynamodb';
import { parseJson, type JsonValue } from '../../../lambda/http/json';
import type { PlantsStore } from '../../../lambda/plants/table';
import { ALL_SCOPES, generateToken, tokenItem } from '../../../lambda/tokens/token';
import { FUNCTION_NAMES, FUNCTIONS } from '../../../lib/definitions/functions';
import { TOKENS_TABLE, TokensTable } from '../../../lambda/tokens/table';
import { makeCreatePlantHandler } from '../../../lambda/create-plant/handler';
import { MAX_BODY_BYTES } from '../../../lambda/create-plant/request';
import { createPlantEvent } from '../../support/events';
import { useLocalService } from '../../support/local-service';
import { unroutedMethods } from '../../support/routes';

/** A burst far above what this suite sends before it asks for the 429. */
const BURST = 400;
const service = useLocalService('openapi-examples', {
  throttle: { rateLimit: 0.001, burstLimit: BURST },
});

type Source = 'function' | 'gateway';
/** `POST /plants 409 function`: one example of the document. */
type ExampleKey = string;

/** The document's examples, parsed as the runtime's bodies are: integers beyond 2^53 exact. */
const documented = new Map<ExampleKey, JsonValue>();
{
  const doc = parseJson(readFileSync(join(__dirname, '../../../openapi.json'), 'utf8')) as {
    [key: string]: JsonValue;
  };
  type Media = { example?: JsonValue; examples?: Record<string, { value: JsonValue }> };
  type Operation = { responses: Record<string, { content?: Record<string, Media> }> };
  const paths = doc.paths as unknown as Record<string, Record<string, Operation>>;
  for (const [path, operations] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      for (const [status, response] of Object.entries(operation.responses)) {
        const media = response.content?.['application/json'];
        if (!media) continue;
        const key = (source: Source): ExampleKey =>
          `${method.toUpperCase()} ${path} ${Number(status)} ${source}`;
        if (media.examples) {
          for (const [source, { value }] of Object.entries(media.examples)) {
            documented.set(key(source as Source), value);
          }
        } else {
          // The gateway's bodies are `{"message"}` alone.
          const fromGateway = Object.keys(media.example as object).join() === 'message';
          documented.set(key(fromGateway ? 'gateway' : 'function'), media.example!);
        }
      }
    }
  }
  const components = doc.components as unknown as {
    responses: Record<string, { content: Record<string, Media> }>;
  };
  documented.set(
    'ANY (no route) 404 gateway',
    components.responses.GatewayNotFound!.content['application/json']!.example!,
  );
}

const compared = new Set<ExampleKey>();
/** The gateway's 503 needs an integration that runs past 30 s. */
const NOT_PROVOKED = /^\S+ \S+ 503 gateway$/;

/** Compares a body received with the examples named by `keys`; each must exist. */
function expectExample(body: string, ...keys: ExampleKey[]): void {
  const received = parseJson(body);
  for (const key of keys) {
    expect({ key, example: documented.get(key) }).toEqual({ key, example: received });
    compared.add(key);
  }
}

/** Every route's key for `status` from `source` (gateway answers are the same on every route). */
const everyRoute = (status: number, source: Source): ExampleKey[] =>
  [...documented.keys()].filter((key) => key.endsWith(` ${status} ${source}`));

const EXAMPLE_ID = '9007199254740993';
const EXAMPLE_BODY = `{"id":${EXAMPLE_ID},"name":"Monstera","tag":"aroid"}`;

/** Every operation, from the registry: its route, its scope, and whether it takes a body. */
const routes = FUNCTION_NAMES.flatMap((name) => {
  const operation = FUNCTIONS[name].operation;
  return operation ? [{ ...operation, body: operation.openapi.requestBody !== undefined }] : [];
});
/** The operations on one plant, `/plants/{id}` and below. */
const withId = routes.filter((route) => route.path.includes('{id}'));

async function send(
  method: string,
  path: string,
  init: { token?: string | null; body?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: string; headers: Headers }> {
  const token = init.token === undefined ? service.devToken : init.token;
  const response = await fetch(`${service.url}${path}`, {
    method,
    headers: {
      ...(token === null ? {} : { authorization: `Bearer ${token}` }),
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...init.headers,
    },
    body: init.body,
  });
  return { status: response.status, body: await response.text(), headers: response.headers };
}

/** A token with exactly `scopes`, written into the runtime's engine. */
async function tokenWith(...scopes: string[]): Promise<string> {
  const client = makeDocumentClient(service.engineClientConfig);
  const { token, tokenId } = generateToken();
  await new TokensTable(client, TOKENS_TABLE.localName).put(
    tokenItem(token, tokenId, { name: scopes.join(' '), scopes }),
  );
  client.destroy();
  return token;
}

it('the function examples of every operation, each provoked', async () => {
  let answer = await send('POST', '/plants', { body: EXAMPLE_BODY });
  expect(answer.status).toBe(200);
  expectExample(answer.body, 'POST /plants 200 function');
  // The store holds only the example plant: the first page is exactly it.
  answer = await send('GET', '/plants');
  expectExample(answer.body, 'GET /plants 200 function');
  answer = await send('GET', `/plants/${EXAMPLE_ID}`);
  expectExample(answer.body, 'GET /plants/{id} 200 function');

  // The changes: a PATCH makes version 2; a request that names version 1 is then the 412's
  // example; PUT makes the example plant again (version 3), and PATCH repeats it (no change).
  const one = `/plants/${EXAMPLE_ID}`;
  answer = await send('PATCH', one, { body: '{"tag":"changed"}' });
  expect(answer.headers.get('etag')).toBe('"2"');
  for (const method of ['PUT', 'PATCH', 'DELETE', 'GET']) {
    answer = await send(method, one, {
      body: method === 'DELETE' || method === 'GET' ? undefined : '{"name":"Monstera"}',
      headers: { 'if-match': '"1"' },
    });
    expect(answer.status).toBe(412);
    expectExample(answer.body, `${method} /plants/{id} 412 function`);
  }
  answer = await send('PUT', one, { body: '{"name":"Monstera","tag":"aroid"}' });
  expect(answer.headers.get('etag')).toBe('"3"');
  expectExample(answer.body, 'PUT /plants/{id} 200 function');
  answer = await send('PATCH', one, { body: '{"tag":"aroid"}' });
  expectExample(answer.body, 'PATCH /plants/{id} 200 function');
  answer = await send('PUT', one, { body: '{"tag":"aroid"}' });
  expect(answer.status).toBe(400);
  expectExample(answer.body, 'PUT /plants/{id} 400 function');
  answer = await send('PATCH', one, { body: '{"name":null}' });
  expect(answer.status).toBe(400);
  expectExample(answer.body, 'PATCH /plants/{id} 400 function');

  answer = await send('POST', '/plants', { body: '{"name":5}' });
  expect(answer.status).toBe(400);
  expectExample(answer.body, 'POST /plants 400 function');
  answer = await send('POST', '/plants', { body: EXAMPLE_BODY.replace('Monstera', 'Pothos') });
  expect(answer.status).toBe(409);
  expectExample(answer.body, 'POST /plants 409 function');
  const large = `{"id":1,"name":"${'x'.repeat(MAX_BODY_BYTES + 1 - '{"id":1,"name":""}'.length)}"}`;
  expect(Buffer.byteLength(large)).toBe(MAX_BODY_BYTES + 1);
  // Every operation that takes a body, from the registry.
  for (const { method, path: route } of routes.filter((each) => each.body)) {
    const path = route.replace('{id}', EXAMPLE_ID);
    answer = await send(method, path, { body: large });
    expect(answer.status).toBe(413);
    expectExample(answer.body, `${method} ${route} 413 function`);
    answer = await send(method, path, {
      body: EXAMPLE_BODY,
      headers: { 'content-type': 'text/plain' },
    });
    expect(answer.status).toBe(415);
    expectExample(answer.body, `${method} ${route} 415 function`);
  }

  // A path id that is no int64: every route with one that takes no body (a body's own 400 is
  // the example of the others, provoked above).
  for (const { method, path } of withId.filter((route) => !route.body)) {
    answer = await send(method, path.replace('{id}', 'abc'));
    expect(answer.status).toBe(400);
    expectExample(answer.body, `${method} ${path} 400 function`);
  }
  answer = await send('GET', '/plants?limit=0');
  expect(answer.status).toBe(400);
  expectExample(answer.body, 'GET /plants 400 function');

  // 403 from the function: a valid token with every scope but the operation's.
  for (const { method, path, scope, body } of routes) {
    answer = await send(method, path.replace('{id}', EXAMPLE_ID), {
      token: await tokenWith(...ALL_SCOPES.filter((other) => other !== scope)),
      body: body ? EXAMPLE_BODY : undefined,
    });
    expect(answer.status).toBe(403);
    expectExample(answer.body, `${method} ${path} 403 function`);
  }

  answer = await send('DELETE', `/plants/${EXAMPLE_ID}`);
  expect(answer.status).toBe(204);
  for (const { method, path, body } of withId) {
    answer = await send(method, path.replace('{id}', EXAMPLE_ID), {
      body: body ? '{"name":"Monstera"}' : undefined,
    });
    expect(answer.status).toBe(404);
    expectExample(answer.body, `${method} ${path} 404 function`);
  }
});

it("the gateway's own answers: 401, 403, 404, 413, 431, 500 and 429", async () => {
  let answer = await send('GET', '/plants', { token: null });
  expect(answer.status).toBe(401);
  expectExample(answer.body, ...everyRoute(401, 'gateway'));
  answer = await send('GET', '/plants', { token: `pst_${'A'.repeat(43)}` });
  expect(answer.status).toBe(403);
  expectExample(answer.body, ...everyRoute(403, 'gateway'));
  answer = await send(...unroutedMethods()[0]!);
  expect(answer.status).toBe(404);
  expectExample(answer.body, 'ANY (no route) 404 gateway');
  answer = await send('POST', '/plants', { body: 'x'.repeat(10 * 1024 * 1024 + 1) });
  expect(answer.status).toBe(413);
  expectExample(answer.body, ...everyRoute(413, 'gateway'));
  answer = await send('GET', '/plants', { headers: { 'x-large': 'x'.repeat(10_240) } });
  expect(answer.status).toBe(431);
  expectExample(answer.body, ...everyRoute(431, 'gateway'));

  // The store down: a token whose decision is cached reaches the function (503); one never
  // seen makes the authorizer fail (the gateway's 500).
  expect((await send('GET', '/plants')).status).toBe(200);
  service.setEngineAvailable(false);
  try {
    answer = await send('GET', `/plants/${EXAMPLE_ID}`);
    expect(answer.status).toBe(503);
    expect(answer.headers.get('retry-after')).toBe('1');
    expectExample(answer.body, ...everyRoute(503, 'function'));
    answer = await send('GET', '/plants', { token: `pst_${'B'.repeat(43)}` });
    expect(answer.status).toBe(500);
    expectExample(answer.body, ...everyRoute(500, 'gateway'));
  } finally {
    service.setEngineAvailable(true);
  }

  // The stage throttle: its bucket, far larger than this suite's requests, runs dry.
  let throttled: { status: number; body: string } | undefined;
  for (let n = 0; n < BURST && !throttled; n++) {
    const sent = await send('PUT', '/nothing', { token: null });
    if (sent.status === 429) throttled = sent;
  }
  expect(throttled?.status).toBe(429);
  expectExample(throttled!.body, ...everyRoute(429, 'gateway'));
});

it("the function's 500: a bug, the create handler given a store that throws a TypeError", async () => {
  const broken = new Proxy({} as PlantsStore, {
    get: () => () =>
      Promise.reject(new TypeError("Cannot read properties of undefined (reading 'S')")),
  });
  const create = makeCreatePlantHandler({ table: broken });
  const answer = await create(createPlantEvent({ body: EXAMPLE_BODY }));
  expect(answer.statusCode).toBe(500);
  expectExample(String(answer.body), ...everyRoute(500, 'function'));
});

it('every example in openapi.json was compared with an answer (but the gateway 503)', () => {
  const left = [...documented.keys()].filter(
    (key) => !compared.has(key) && !NOT_PROVOKED.test(key),
  );
  expect(left).toEqual([]);
  expect(compared.size).toBeGreaterThanOrEqual(30);
});
