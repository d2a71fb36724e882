/**
 * The create-plant handler in-process, with a recording client in place of DynamoDB: every
 * rejected body answers its exact status and names its field, and never reaches the store.
 */
import { PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { makeCreatePlantHandler } from '../../../lambda/create-plant/handler';
import { createPlantEvent, plantBody, type EventOptions } from '../../support/events';

const INT64_RULE = 'must be an integer from -9223372036854775808 to 9223372036854775807';

function harness() {
  const sent: unknown[] = [];
  const plants = {
    send: async (command: unknown) => {
      sent.push(command);
      return {};
    },
  } as unknown as DynamoDBDocumentClient;
  const handler = makeCreatePlantHandler({ plants, tableName: 'plants' });
  const call = async (options: EventOptions) => {
    const result = await handler(createPlantEvent(options));
    return { ...result, json: JSON.parse(result.body ?? 'null') as Record<string, unknown> };
  };
  const stored = () => (sent[0] as PutCommand | undefined)?.input.Item;
  return { call, sent, stored };
}

describe('ids are exact int64 values', () => {
  it.each([
    ['5', 5n],
    ['5.0', 5n],
    ['5e0', 5n],
    ['50e-1', 5n],
    ['0.5E1', 5n],
    ['-0', 0n],
    ['0e999999999', 0n],
    ['9007199254740991', 2n ** 53n - 1n],
    ['9007199254740992', 2n ** 53n],
    ['9007199254740993', 2n ** 53n + 1n],
    ['-9007199254740993', -(2n ** 53n + 1n)],
    ['-9007199254740991', -(2n ** 53n - 1n)],
    ['9223372036854775807', 2n ** 63n - 1n],
    ['-9223372036854775808', -(2n ** 63n)],
    ['9.223372036854775807e18', 2n ** 63n - 1n],
  ])('id %s is stored as %p', async (literal, expected) => {
    const { call, stored } = harness();
    const answer = await call({ body: plantBody(literal, { name: 'Fern' }) });
    expect(answer.statusCode).toBe(200);
    expect(answer.json).toEqual({ name: 'Fern' });
    expect(stored()?.id).toBe(expected);
  });

  it.each([
    '9223372036854775808',
    '-9223372036854775809',
    '1e19',
    '-1e19',
    '1e400',
    '5.5',
    '1e-1',
    '9223372036854775807.5',
    '"5"',
    'null',
    'true',
    '[5]',
    '{}',
  ])('id %s is 400 naming id', async (literal) => {
    const { call, sent } = harness();
    const answer = await call({ body: plantBody(literal, { name: 'Fern' }) });
    expect(answer.statusCode).toBe(400);
    expect(answer.json).toEqual({ error: 400, message: `id: ${INT64_RULE}` });
    expect(sent).toHaveLength(0);
  });
});

describe('bodies', () => {
  it.each([
    ['null', 'body: must be a JSON object'],
    ['[]', 'body: must be a JSON object'],
    ['[{"id":1,"name":"a"}]', 'body: must be a JSON object'],
    ['"plant"', 'body: must be a JSON object'],
    ['42', 'body: must be a JSON object'],
    ['{}', 'id: required; name: required'],
    ['{"name":"a"}', 'id: required'],
    ['{"id":1}', 'name: required'],
    ['{"id":1,"name":5}', 'name: must be a string'],
    ['{"id":1,"name":"a","tag":null}', 'tag: must be a string'],
    ['{"id":1,"name":"a","tag":7}', 'tag: must be a string'],
    [
      '{"id":"x","name":null,"tag":false}',
      `id: ${INT64_RULE}; name: must be a string; tag: must be a string`,
    ],
    ['{"id":1,"name":"a","id":1}', 'id: appears more than once'],
    ['{"id":1,"name":"a","extra":{"k":1,"k":2}}', 'extra.k: appears more than once'],
  ])('%s is 400: %s', async (body, message) => {
    const { call, sent } = harness();
    const answer = await call({ body });
    expect(answer).toMatchObject({
      statusCode: 400,
      headers: { 'content-type': 'application/json' },
    });
    expect(answer.json).toEqual({ error: 400, message });
    expect(sent).toHaveLength(0);
  });

  it.each([
    ['', 'unexpected end of input at position 0'],
    ['   ', 'unexpected end of input at position 3'],
    ['{"id":1,"name":"a"} x', 'unexpected data after the JSON value at position 20'],
    ['{"id":1,"name":"a"}{}', 'unexpected data after the JSON value at position 19'],
    ['{"id":1,"name":"a",}', 'expected a member name at position 19'],
    ["{'id':1}", 'expected a member name at position 1'],
    ['{"id":01,"name":"a"}', 'invalid number at position 7'],
    ['{"id":1.,"name":"a"}', 'invalid number at position 7'],
    ['{"id":+1,"name":"a"}', 'unexpected character at position 6'],
    ['{"id":NaN,"name":"a"}', 'unexpected character at position 6'],
    ['{"id":1,"name":"a\tb"}', 'control character in string at position 17'],
    ['{"id":1,"name":"\\x"}', 'invalid escape at position 16'],
    ['\ufeff{"id":1,"name":"a"}', 'unexpected character at position 0'],
  ])('%j is 400: not JSON', async (body, reason) => {
    const { call, sent } = harness();
    const answer = await call({ body });
    expect(answer.statusCode).toBe(400);
    expect(answer.json).toEqual({ error: 400, message: `body: must be valid JSON (${reason})` });
    expect(sent).toHaveLength(0);
  });

  it.each([
    [
      '{"id":1,"name":"\\ud800"}',
      'must be I-JSON, RFC 7493 (string with a lone surrogate at position 15)',
    ],
    [
      `{"id":1,"name":"a","deep":${'['.repeat(600)}${']'.repeat(600)}}`,
      'must nest at most 512 levels (nesting deeper than 512 levels at position 537)',
    ],
  ])('%j is JSON this service refuses: 400', async (body, rule) => {
    const { call, sent } = harness();
    const answer = await call({ body });
    expect(answer.json).toEqual({ error: 400, message: `body: ${rule}` });
    expect(sent).toHaveLength(0);
  });

  it('a missing body is 400', async () => {
    const { call } = harness();
    const answer = await call({ body: undefined });
    expect(answer.json).toEqual({
      error: 400,
      message: 'body: must be valid JSON (unexpected end of input at position 0)',
    });
  });

  it('unknown members, __proto__ included, are ignored and not stored', async () => {
    const { call, stored } = harness();
    const answer = await call({
      body: '{"id":1,"name":"a","color":"red","__proto__":{"tag":"x"},"constructor":1}',
    });
    expect(answer.statusCode).toBe(200);
    expect(answer.json).toEqual({ name: 'a' });
    expect(Object.keys(stored() ?? {}).sort()).toEqual([
      'createId',
      'createdAt',
      'createdBy',
      'id',
      'name',
    ]);
  });

  it('answers the plant with its tag and without its id, and stores who created it', async () => {
    const { call, stored } = harness();
    const answer = await call({ body: plantBody('12', { name: 'Monstera', tag: 'aroid' }) });
    expect(answer.body).toBe('{"name":"Monstera","tag":"aroid"}');
    expect(stored()).toEqual({
      id: 12n,
      name: 'Monstera',
      tag: 'aroid',
      createdBy: 'tok_example',
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      createId: expect.stringMatching(/^[\w-]{16}$/),
    });
  });

  it.each([
    ['an empty name', ''],
    ['unicode', 'Kaktus 🌵 ñ 日本 \u0000'],
    ['a name of 1,000 four-byte characters (2,000 UTF-16 units)', '🌿'.repeat(1000)],
  ])('accepts %s and echoes it exactly', async (_, name) => {
    const { call, stored } = harness();
    const answer = await call({ body: plantBody('3', { name }) });
    expect(answer.statusCode).toBe(200);
    expect(answer.json).toEqual({ name });
    expect(stored()?.name).toBe(name);
  });
});

describe('content type, size and encoding', () => {
  it.each([
    'application/json',
    'application/json; charset=utf-8',
    'Application/JSON;Charset="UTF-8"',
    'application/merge-patch+json',
    'application/vnd.plant+json; version=1',
  ])('%s is accepted', async (contentType) => {
    const { call } = harness();
    expect((await call({ body: plantBody('1', { name: 'a' }), contentType })).statusCode).toBe(200);
  });

  it.each([
    ['text/plain', 'content-type text/plain is not accepted; send application/json'],
    ['application/jsonx', 'content-type application/jsonx is not accepted; send application/json'],
    [
      'application/x-www-form-urlencoded',
      'content-type application/x-www-form-urlencoded is not accepted; send application/json',
    ],
    ['json', 'content-type json is not accepted; send application/json'],
    ['application/json; charset=latin1', 'charset latin1 is not accepted; send UTF-8'],
    [null, 'content-type is required; send application/json'],
  ])('%s is 415', async (contentType, message) => {
    const { call, sent } = harness();
    const answer = await call({ body: plantBody('1', { name: 'a' }), contentType });
    expect(answer.statusCode).toBe(415);
    expect(answer.json).toEqual({ error: 415, message });
    expect(sent).toHaveLength(0);
  });

  // Two-byte characters in an ignored member: the limit counts bytes, and names are bounded.
  const padded = (bytes: number) => {
    const head = '{"id":1,"name":"a","pad":"';
    return head + 'é'.repeat((bytes - head.length - 2) / 2) + '"}';
  };

  it('a body of exactly 262,144 bytes is accepted; one byte more is 413', async () => {
    const { call } = harness();
    const exact = padded(262_144);
    expect(Buffer.byteLength(exact)).toBe(262_144);
    expect((await call({ body: exact })).statusCode).toBe(200);
    const over = exact.replace('"name"', '"name" ');
    const answer = await call({ body: over });
    expect(answer.statusCode).toBe(413);
    expect(answer.json).toEqual({
      error: 413,
      message: 'body: must be at most 262144 bytes; got 262145',
    });
  });

  it('over the limit with U+FFFD in it, says the gateway puts one, 3 bytes, for each sequence that is not UTF-8', async () => {
    const { call } = harness();
    // What the gateway passes on for 100,000 bytes of 0xFF among valid ones.
    const answer = await call({ body: `{"id":1,"name":"a","pad":"${'\uFFFD'.repeat(100_000)}"}` });
    expect(answer.statusCode).toBe(413);
    expect(answer.json).toEqual({
      error: 413,
      message:
        'body: must be at most 262144 bytes; got 300028, counting each U+FFFD (3 bytes), which the gateway puts in place of each sequence that is not UTF-8',
    });
  });

  it('counts the decoded bytes of a base64 body', async () => {
    const { call } = harness();
    expect((await call({ body: padded(262_144), base64: true })).statusCode).toBe(200);
    expect((await call({ body: padded(262_146), base64: true })).statusCode).toBe(413);
  });

  it('decodes a base64 body', async () => {
    const { call, stored } = harness();
    const answer = await call({
      body: plantBody('9007199254740993', { name: 'Ficus 🌿' }),
      base64: true,
    });
    expect(answer.json).toEqual({ name: 'Ficus 🌿' });
    expect(stored()?.id).toBe(9007199254740993n);
  });

  it('a base64 body that is not UTF-8 is 400', async () => {
    const { call, sent } = harness();
    const body = Buffer.concat([
      Buffer.from('{"id":1,"name":"'),
      Buffer.from([0xc3, 0x28, 0x22, 0x7d]),
    ]);
    const answer = await call({ body, base64: true });
    expect(answer.statusCode).toBe(400);
    expect(answer.json).toEqual({ error: 400, message: 'body: must be UTF-8' });
    expect(sent).toHaveLength(0);
  });
});

describe('the scope check comes first', () => {
  it.each([
    ['no authorizer context', null],
    ['scopes without plants:write', { tokenId: 't', name: 'n', scopes: 'plants:read' }],
    ['a scope that only starts like it', { tokenId: 't', name: 'n', scopes: 'plants:writer' }],
    ['a context without tokenId', { name: 'n', scopes: 'plants:write' }],
  ])('%s is 403, before content type and body', async (_, context) => {
    const { call, sent } = harness();
    const answer = await call({ context, contentType: 'text/plain', body: 'x'.repeat(300_000) });
    expect(answer.statusCode).toBe(403);
    expect(answer.json).toEqual({ error: 403, message: 'the token lacks the scope plants:write' });
    expect(sent).toHaveLength(0);
  });

  it('content type comes before size, and size before syntax', async () => {
    const { call } = harness();
    expect((await call({ contentType: 'text/plain', body: 'x'.repeat(300_000) })).statusCode).toBe(
      415,
    );
    expect((await call({ body: 'x'.repeat(300_000) })).statusCode).toBe(413);
  });

  it('accepts a token with several scopes', async () => {
    const { call } = harness();
    const context = { tokenId: 't', name: 'n', scopes: 'plants:read plants:write' };
    expect((await call({ context, body: plantBody('1', { name: 'a' }) })).statusCode).toBe(200);
  });
});
