/**
 * What an operator reads, from the functions' real output on a real engine: one JSON line per
 * request with its outcome, request id, token id and plant id; EMF metric lines whose counts
 * add up to the requests sent; and no token, hash or body in any line.
 */
import { makeAuthorizerHandler } from '../../../lambda/authorizer/handler';
import { makeCreatePlantHandler } from '../../../lambda/create-plant/handler';
import { makeDocumentClient } from '../../../lambda/aws/dynamodb';
import { METRICS_NAMESPACE } from '../../../lambda/observability/metrics-contract';
import { redact } from '../../../lambda/observability/powertools';
import { PLANTS_TABLE } from '../../../lambda/aws/tables';
import { generateToken, hashToken, tokenItem } from '../../../lambda/tokens/token';
import { TOKENS_TABLE, TokensTable } from '../../../lambda/tokens/table';
import { LOCAL_REGION } from '../../../lib/local/dynamodb/engine';
import { authorizerEvent, createPlantEvent, plantBody } from '../../support/events';
import { captureOutput, type CapturedOutput } from '../../support/output';
import { startTestStore, type TestStore } from '../../support/store';

/** Nothing listens where these go: any keys do. */
const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

let store: TestStore;
let output: CapturedOutput;
beforeAll(async () => {
  store = await startTestStore();
});
afterAll(async () => {
  await store.close();
});
beforeEach(() => {
  output = captureOutput();
});
afterEach(() => output.restore());

const writer = { tokenId: 'tok_0123456789abcdef', name: 'ops', scopes: 'plants:write' };

it('create-plant: one line per request with its outcome and ids, and metrics that add up', async () => {
  const create = makeCreatePlantHandler({
    plants: store.plants,
    tableName: PLANTS_TABLE.localName,
  });
  const secretName = 'secret-body-text-Monstera';
  const requests: [string, Parameters<typeof createPlantEvent>[0], number][] = [
    ['created', { body: plantBody('9007199254740993', { name: secretName }) }, 200],
    ['unchanged', { body: plantBody('9007199254740993', { name: secretName }) }, 200],
    ['conflict', { body: plantBody('9007199254740993', { name: 'other' }) }, 409],
    ['invalid', { body: '{"id":1.5,"name":"x"}' }, 400],
    ['invalid', { body: plantBody('1', { name: secretName }), contentType: 'text/plain' }, 415],
    [
      'forbidden',
      { body: plantBody('2', { name: 'x' }), context: { ...writer, scopes: 'plants:read' } },
      403,
    ],
  ];
  for (const [index, [, options, status]] of requests.entries()) {
    const answer = await create(
      createPlantEvent({ context: writer, requestId: `req-${index}`, ...options }),
    );
    expect(answer.statusCode).toBe(status);
  }

  const lines = output.json().filter((line) => 'level' in line);
  expect(lines.map((line) => [line.message, line.requestId])).toEqual(
    requests.map(([outcome], index) => [outcome, `req-${index}`]),
  );
  for (const line of lines) expect(line).toMatchObject({ level: 'INFO', service: 'plant-store' });
  // Every line says whose token it was, the 403 for a missing scope too; the scope check comes
  // first, so a token without the scope is not read further (no plant id on its line).
  for (const line of lines) expect(line.tokenId).toBe(writer.tokenId);
  expect(lines[5]).toMatchObject({ message: 'forbidden', tokenId: writer.tokenId });
  expect(lines[5]).not.toHaveProperty('plantId');
  expect(lines[0]).toMatchObject({ plantId: '9007199254740993' });
  expect(lines[3]!.rule).toBe(
    'id: must be an integer from -9223372036854775808 to 9223372036854775807',
  );
  expect(String(lines[4]!.rule)).toMatch(/^content-type text\/plain/);
  expect(output.lines.join('\n')).not.toContain(secretName);

  expect(output.metricCounts()).toEqual({
    PlantsCreated: 1,
    RetriesAnswered: 1,
    Conflicts: 1,
    ValidationFailures: 2,
    MissingScope: 1,
  });
  const emf = output.json().filter((line) => '_aws' in line);
  expect(emf).toHaveLength(requests.length);
  expect(emf[0]).toMatchObject({
    _aws: { CloudWatchMetrics: [{ Namespace: METRICS_NAMESPACE, Dimensions: [['service']] }] },
  });
});

it('create-plant: an unavailable store is one error line with the request id and a StoreUnavailable', async () => {
  const down = makeDocumentClient({
    endpoint: 'http://127.0.0.1:9',
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
    maxAttempts: 1,
  });
  const create = makeCreatePlantHandler({ plants: down, tableName: PLANTS_TABLE.localName });
  const answer = await create(
    createPlantEvent({
      context: writer,
      requestId: 'req-down',
      body: plantBody('3', { name: 'x' }),
    }),
  );
  expect(answer.statusCode).toBe(503);
  const lines = output.json().filter((line) => 'level' in line);
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatchObject({
    level: 'ERROR',
    message: 'unavailable',
    requestId: 'req-down',
    plantId: '3',
  });
  expect(output.metricCounts()).toEqual({ StoreUnavailable: 1 });
  down.destroy();
});

it('authorizer: allowed and denied by reason, never a token or its hash', async () => {
  const tokens = makeDocumentClient(store.engine.clientConfig);
  const authorize = makeAuthorizerHandler({ tokens, tableName: TOKENS_TABLE.localName });
  const valid = generateToken();
  const expired = generateToken();
  const unknown = generateToken();
  for (const [{ token, tokenId }, expiresAt] of [
    [valid, undefined],
    [expired, 1],
  ] as const) {
    await new TokensTable(tokens, TOKENS_TABLE.localName).put(
      tokenItem(token, tokenId, { name: 'obs', scopes: ['plants:write'], expiresAt }),
    );
  }
  const headers = [
    `Bearer ${valid.token}`,
    `Bearer ${valid.token}`,
    `Bearer ${unknown.token}`,
    `Bearer ${expired.token}`,
    `Basic ${valid.token}`,
    'Bearer pst_short',
  ];
  for (const header of headers) await authorize(authorizerEvent(header));

  const lines = output.json().filter((line) => 'level' in line);
  expect(lines.map((line) => [line.message, line.reason, line.tokenId])).toEqual([
    ['allowed', undefined, valid.tokenId],
    ['allowed', undefined, valid.tokenId],
    ['denied', 'unknown', undefined],
    ['denied', 'expired', expired.tokenId],
    ['denied', 'malformed', undefined],
    ['denied', 'malformed', undefined],
  ]);
  expect(output.metricCounts()).toEqual({
    Allowed: 2,
    'Denied:unknown': 1,
    'Denied:expired': 1,
    'Denied:malformed': 2,
  });
  const text = output.lines.join('\n');
  for (const { token } of [valid, expired, unknown]) {
    expect(text).not.toContain(token);
    expect(text).not.toContain(token.slice(4, 24));
    expect(text).not.toContain(hashToken(token));
  }
  tokens.destroy();
});

it('redacts anything shaped like a token or a SHA-256 digest', () => {
  const { token } = generateToken();
  const hash = hashToken(token);
  expect(redact(`a ${token} b ${hash} c`)).toBe('a [redacted] b [redacted] c');
  expect(redact('x'.repeat(400))).toHaveLength(301);
});
