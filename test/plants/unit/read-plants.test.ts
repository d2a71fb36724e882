/**
 * GET /plants/{id}, GET /plants and DELETE /plants/{id} in-process, with a recording client in
 * place of DynamoDB: the scope check first, then every parameter rule with its exact message,
 * and nothing reaches the store for a rejected request.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  NumberValue,
  ScanCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { makeDeletePlantHandler } from '../../../lambda/delete-plant/handler';
import { makeGetPlantHandler } from '../../../lambda/get-plant/handler';
import { makeListPlantsHandler } from '../../../lambda/list-plants/handler';
import { decodeCursor, encodeCursor } from '../../../lambda/plants/cursor';
import { plantsEvent, type PlantsEventOptions } from '../../support/events';
import { captureOutput } from '../../support/output';

const ID_RULE = 'id: must be an integer from -9223372036854775808 to 9223372036854775807';
const LIMIT_RULE = 'limit: must be an integer from 1 to 100';
const CURSOR_RULE = 'cursor: must be the next value of a previous page';

/**
 * A client that records each command and answers `answer`; a conditional UpdateItem (a delete's
 * mark) whose answer has no item fails its condition, as on an engine without the plant.
 */
function harness(answer: Record<string, unknown> = {}) {
  const sent: { input: Record<string, unknown> }[] = [];
  const plants = {
    send: async (command: { input: Record<string, unknown> }) => {
      sent.push(command);
      if (command instanceof UpdateCommand && !('Attributes' in answer)) {
        throw new ConditionalCheckFailedException({ message: 'no plant', $metadata: {} });
      }
      return answer;
    },
  } as unknown as DynamoDBDocumentClient;
  const deps = { plants, tableName: 'plants' };
  const handlers = {
    GET: makeGetPlantHandler(deps),
    LIST: makeListPlantsHandler(deps),
    DELETE: makeDeletePlantHandler(deps),
  };
  const call = async (which: keyof typeof handlers, options: Partial<PlantsEventOptions> = {}) => {
    const event = plantsEvent({
      method: which === 'DELETE' ? 'DELETE' : 'GET',
      route: which === 'LIST' ? '/plants' : '/plants/{id}',
      ...options,
    });
    const result = await handlers[which](event);
    return { ...result, json: result.body === undefined ? undefined : JSON.parse(result.body) };
  };
  return { call, sent };
}

const byId = (id: string) => ({ pathParameters: { id } });

describe('path ids: the canonical decimal spelling of an int64', () => {
  it.each([
    ['0', 0n],
    ['42', 42n],
    ['-7', -7n],
    ['9007199254740993', 2n ** 53n + 1n],
    ['9223372036854775807', 2n ** 63n - 1n],
    ['-9223372036854775808', -(2n ** 63n)],
  ])(
    '%s is the key %p of the GetItem and of the delete’s conditional UpdateItem',
    async (text, id) => {
      const { call, sent } = harness();
      expect(await call('GET', byId(text))).toMatchObject({
        statusCode: 404,
        json: { error: 404, message: `no plant with id ${text}` },
      });
      expect(await call('DELETE', byId(text))).toMatchObject({
        statusCode: 404,
        json: { error: 404, message: `no plant with id ${text}` },
      });
      // The delete's mark found nothing; this engine returned no old item, so one read says so.
      expect(sent.map((command) => command.constructor.name)).toEqual([
        'GetCommand',
        'UpdateCommand',
        'GetCommand',
      ]);
      const read = { TableName: 'plants', Key: { id }, ConsistentRead: true };
      expect(sent[0]!.input).toEqual(read);
      expect(sent[1]!.input).toMatchObject({
        TableName: 'plants',
        Key: { id },
        ConditionExpression: 'attribute_exists(#key) AND attribute_not_exists(#deletedAt)',
      });
      expect(sent[2]!.input).toEqual(read);
    },
  );

  it.each([
    '+5',
    '05',
    '00',
    '-0',
    '-05',
    '1e3',
    '1E3',
    '5.0',
    '5.',
    '.5',
    ' 5',
    '5 ',
    '',
    '-',
    'abc',
    '0x10',
    '1_000',
    '٤٢',
    '9223372036854775808',
    '-9223372036854775809',
    '99999999999999999999',
    '12345678901234567890123',
    '5/6',
  ])('%p is 400 and reaches nothing', async (text) => {
    const { call, sent } = harness();
    for (const which of ['GET', 'DELETE'] as const) {
      expect(await call(which, byId(text))).toMatchObject({
        statusCode: 400,
        headers: { 'content-type': 'application/json' },
        json: { error: 400, message: ID_RULE },
      });
    }
    expect(sent).toEqual([]);
  });

  it('a missing path parameter breaks the same rule', async () => {
    const { call, sent } = harness();
    expect((await call('GET', {})).json).toEqual({ error: 400, message: ID_RULE });
    expect((await call('DELETE', { pathParameters: {} })).json).toEqual({
      error: 400,
      message: ID_RULE,
    });
    expect(sent).toEqual([]);
  });
});

describe('answers', () => {
  it('GET answers the plant with its id as a JSON integer with every digit', async () => {
    const { call } = harness({
      Item: {
        id: new NumberValue('9007199254740993'),
        name: 'Monstera',
        tag: 'aroid',
        createdBy: 'x',
      },
    });
    const answer = await call('GET', byId('9007199254740993'));
    expect(answer.statusCode).toBe(200);
    expect(answer.headers).toEqual({ 'content-type': 'application/json', etag: '"1"' });
    expect(answer.body).toBe('{"id":9007199254740993,"name":"Monstera","tag":"aroid"}');
  });

  it('GET leaves out a tag the plant does not have', async () => {
    const { call } = harness({ Item: { id: new NumberValue('-7'), name: '' } });
    expect((await call('GET', byId('-7'))).body).toBe('{"id":-7,"name":""}');
  });

  it('DELETE answers 204 without a body when there was a plant', async () => {
    const { call } = harness({
      Attributes: { id: new NumberValue('5'), name: 'Fern', deletedAt: 'now', version: 2 },
    });
    const answer = await call('DELETE', byId('5'));
    expect(answer).toEqual({ statusCode: 204, json: undefined });
  });

  it('a stored item without a string name is a 500 that says nothing of it', async () => {
    const logged = captureOutput();
    const { call } = harness({ Item: { id: new NumberValue('5'), name: 5 } });
    const answer = await call('GET', { ...byId('5'), requestId: 'req-bad-item' }).finally(() =>
      logged.restore(),
    );
    expect(answer.statusCode).toBe(500);
    expect(answer.body).not.toContain('name');
    expect(logged.json()).toContainEqual(
      expect.objectContaining({ level: 'ERROR', requestId: 'req-bad-item' }),
    );
  });
});

describe('the page query', () => {
  it('limit defaults to 20 and the first page starts at the beginning: one Scan', async () => {
    const { call, sent } = harness();
    const answer = await call('LIST');
    expect(answer).toMatchObject({ statusCode: 200, body: '{"plants":[]}' });
    expect(sent).toHaveLength(1);
    expect(sent[0]).toBeInstanceOf(ScanCommand);
    expect(sent[0]!.input).toEqual({ TableName: 'plants', Limit: 20, ConsistentRead: true });
  });

  it.each(['1', '7', '20', '100'])('limit %s is the Scan Limit', async (limit) => {
    const { call, sent } = harness();
    expect((await call('LIST', { query: { limit } })).statusCode).toBe(200);
    expect(sent[0]!.input.Limit).toBe(Number(limit));
  });

  it.each(['0', '101', '1000', '-1', '+5', '05', '5.0', '1e1', '', ' 5', 'ten', '5,6', '0x10'])(
    'limit %p is 400 and reaches nothing',
    async (limit) => {
      const { call, sent } = harness();
      expect(await call('LIST', { query: { limit } })).toMatchObject({
        statusCode: 400,
        json: { error: 400, message: LIMIT_RULE },
      });
      expect(sent).toEqual([]);
    },
  );

  it('a cursor resumes after its key; the page answers the next cursor', async () => {
    const { call, sent } = harness({
      Items: [{ id: new NumberValue('9223372036854775807'), name: 'Last' }],
      LastEvaluatedKey: { id: new NumberValue('9223372036854775807') },
    });
    const cursor = encodeCursor(-(2n ** 63n));
    const answer = await call('LIST', { query: { limit: '1', cursor, other: 'ignored' } });
    expect(sent[0]!.input).toEqual({
      TableName: 'plants',
      Limit: 1,
      ConsistentRead: true,
      ExclusiveStartKey: { id: -(2n ** 63n) },
    });
    expect(answer.body).toBe(
      `{"plants":[{"id":9223372036854775807,"name":"Last"}],"next":"${encodeCursor(2n ** 63n - 1n)}"}`,
    );
  });

  const b64 = (text: string) => Buffer.from(text).toString('base64url');
  it.each([
    ['empty', ''],
    ['not base64url', '!!'],
    ['standard base64 with padding', `${b64('42')}=`],
    ['another spelling of the same bytes', 'NDJ'],
    ['one character', 'A'],
    ['not a number', b64('abc')],
    ['a leading zero', b64('042')],
    ['minus zero', b64('-0')],
    ['a plus sign', b64('+42')],
    ['an exponent', b64('1e3')],
    ['beyond int64', b64('9223372036854775808')],
    ['below int64', b64('-9223372036854775809')],
    ['JSON', b64('{"id":42}')],
    ['the decimal itself', '42'],
  ])('cursor %s is 400 and reaches nothing', async (_, cursor) => {
    const { call, sent } = harness();
    expect(await call('LIST', { query: { cursor } })).toMatchObject({
      statusCode: 400,
      json: { error: 400, message: CURSOR_RULE },
    });
    expect(sent).toEqual([]);
  });

  it('names both parameters when both are wrong', async () => {
    const { call } = harness();
    expect((await call('LIST', { query: { limit: '0', cursor: '!' } })).json).toEqual({
      error: 400,
      message: `${LIMIT_RULE}; ${CURSOR_RULE}`,
    });
  });

  it('cursors round-trip at the int64 edges', () => {
    for (const id of [0n, -1n, 2n ** 53n + 1n, 2n ** 63n - 1n, -(2n ** 63n)]) {
      const cursor = encodeCursor(id);
      expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(decodeCursor(cursor)).toEqual({ id });
    }
  });
});

describe('the scope check comes first', () => {
  const noScope = { tokenId: 't', name: 'n', scopes: 'plants:write' };
  it.each([
    ['GET', 'plants:read', { ...byId('x') }],
    ['LIST', 'plants:read', { query: { limit: '0' } }],
    ['DELETE', 'plants:delete', { ...byId('x') }],
  ] as const)('%s without %s is 403, even with bad parameters', async (which, scope, options) => {
    const { call, sent } = harness();
    for (const context of [
      noScope,
      { tokenId: 't', name: 'n', scopes: `${scope}s` },
      { tokenId: 't', name: 'n', scopes: '' },
      { name: 'n', scopes: scope },
    ]) {
      expect(await call(which, { ...options, context })).toMatchObject({
        statusCode: 403,
        json: { error: 403, message: `the token lacks the scope ${scope}` },
      });
    }
    expect(await call(which, { ...options, context: null })).toMatchObject({ statusCode: 403 });
    expect(sent).toEqual([]);
  });

  it('plants:read does not allow DELETE; plants:delete does not allow GET', async () => {
    const { call } = harness();
    const read = { tokenId: 't', name: 'n', scopes: 'plants:read plants:write' };
    const del = { tokenId: 't', name: 'n', scopes: 'plants:delete' };
    expect((await call('DELETE', { ...byId('1'), context: read })).statusCode).toBe(403);
    expect((await call('GET', { ...byId('1'), context: del })).statusCode).toBe(403);
    expect((await call('LIST', { context: del })).statusCode).toBe(403);
    expect((await call('GET', { ...byId('1'), context: read })).statusCode).toBe(404);
    expect((await call('DELETE', { ...byId('1'), context: del })).statusCode).toBe(404);
  });
});
