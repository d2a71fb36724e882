/**
 * The authorizer against a real engine: only an existing, unexpired token is allowed, a
 * malformed one never reaches the table, an unreadable table throws, and no log line ever
 * holds a token or its hash.
 */
import { DynamoDBClient, PutItemCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { makeAuthorizerHandler } from '../../../lambda/authorizer/handler';
import { makeDocumentClient } from '../../../lambda/aws/dynamodb';
import { generateToken, hashToken, tokenItem } from '../../../lambda/tokens/token';
import { TOKENS_TABLE, TokensTable } from '../../../lambda/tokens/table';
import { startEngine, LOCAL_REGION, type Engine } from '../../../lib/local/dynamodb/engine';
import { authorizerEvent } from '../../support/events';
import { captureOutput, type CapturedOutput } from '../../support/output';
import { countRequests } from '../../support/store';

/** Nothing listens where these go: any keys do. */
const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

let engine: Engine;
let tokens: ReturnType<typeof makeDocumentClient>;
let requests: string[];
let authorize: ReturnType<typeof makeAuthorizerHandler>;
let logLines: string[];
let output: CapturedOutput;

async function issue(options: { scopes?: string[]; expiresAt?: number } = {}) {
  const { token, tokenId } = generateToken();
  const item = tokenItem(token, tokenId, {
    name: 'test',
    scopes: options.scopes ?? ['plants:write'],
    expiresAt: options.expiresAt,
  });
  await new TokensTable(tokens, TOKENS_TABLE.localName).put(item);
  return { token, tokenId };
}

beforeAll(async () => {
  engine = await startEngine();
  tokens = makeDocumentClient(engine.clientConfig);
  requests = countRequests(tokens);
  authorize = makeAuthorizerHandler({ tokens, tableName: TOKENS_TABLE.localName });
});
afterAll(async () => {
  tokens.destroy();
  await engine.close();
});
beforeEach(() => {
  requests.length = 0;
  output = captureOutput();
  logLines = output.lines;
});
afterEach(() => output.restore());

it('allows a valid token, with its principal as context, in one strongly consistent read', async () => {
  const { token, tokenId } = await issue();
  requests.length = 0;
  const answer = await authorize(authorizerEvent(`Bearer ${token}`));
  expect(answer).toEqual({
    isAuthorized: true,
    context: { tokenId, name: 'test', scopes: 'plants:write', scopesRevision: 2 },
  });
  expect(requests).toEqual(['GetItemCommand']);
  expect(logLines.join('\n')).toContain(tokenId);
});

it.each(['bearer', 'BEARER', 'BeArEr'])('accepts the scheme spelled %s', async (scheme) => {
  const { token } = await issue();
  expect((await authorize(authorizerEvent(`${scheme} ${token}`))).isAuthorized).toBe(true);
});

it('passes every scope as one space-separated string', async () => {
  const { token } = await issue({ scopes: ['plants:write', 'plants:read'] });
  expect(await authorize(authorizerEvent(`Bearer ${token}`))).toMatchObject({
    context: { scopes: 'plants:write plants:read' },
  });
});

it('denies an unknown well-formed token after reading the table', async () => {
  const { token } = generateToken();
  expect(await authorize(authorizerEvent(`Bearer ${token}`))).toEqual({ isAuthorized: false });
  expect(requests).toEqual(['GetItemCommand']);
});

describe('malformed credentials are denied without touching the table', () => {
  const { token } = generateToken();
  it.each([
    ['no header', undefined],
    ['an empty header', ''],
    ['the token without a scheme', token],
    ['another scheme', `Basic ${token}`],
    ['a Token scheme', `Token ${token}`],
    ['two spaces', `Bearer  ${token}`],
    ['a trailing space', `Bearer ${token} `],
    ['a leading space', ` Bearer ${token}`],
    ['a tab', `Bearer\t${token}`],
    ['a wrong prefix', `Bearer psk_${token.slice(4)}`],
    ['an upper-case prefix', `Bearer PST_${token.slice(4)}`],
    ['one character short', `Bearer ${token.slice(0, -1)}`],
    ['one character long', `Bearer ${token}A`],
    ['a character outside base64url', `Bearer ${token.slice(0, -1)}+`],
    ['padding', `Bearer ${token.slice(0, -1)}=`],
    ['two tokens', `Bearer ${token}, Bearer ${token}`],
    ['a newline', `Bearer ${token}\n`],
  ])('%s', async (_, header) => {
    expect(await authorize(authorizerEvent(header))).toEqual({ isAuthorized: false });
    expect(requests).toEqual([]);
  });
});

it('denies an expired token and allows one that expires later', async () => {
  const now = Math.floor(Date.now() / 1000);
  const expired = await issue({ expiresAt: now - 1 });
  const later = await issue({ expiresAt: now + 3600 });
  expect(await authorize(authorizerEvent(`Bearer ${expired.token}`))).toEqual({
    isAuthorized: false,
  });
  expect(logLines.join('\n')).toContain('"reason":"expired"');
  expect((await authorize(authorizerEvent(`Bearer ${later.token}`))).isAuthorized).toBe(true);
});

describe('a malformed stored item is denied (malformed-item), as written to the table', () => {
  const now = String(Math.floor(Date.now() / 1000) + 3600);
  it.each<[string, Record<string, AttributeValue | undefined>]>([
    ['expiresAt a string', { expiresAt: { S: 'soon' } }],
    ['expiresAt a numeric string', { expiresAt: { S: now } }],
    ['expiresAt NULL', { expiresAt: { NULL: true } }],
    ['expiresAt a boolean', { expiresAt: { BOOL: true } }],
    ['expiresAt a map', { expiresAt: { M: { value: { S: now } } } }],
    ['scopes a string', { scopes: { S: 'plants:write' } }],
    ['scopes a number set', { scopes: { NS: ['1'] } }],
    ['scopes a list with a number', { scopes: { L: [{ S: 'plants:write' }, { N: '1' }] } }],
    ['scopes missing', { scopes: undefined }],
    ['tokenId missing', { tokenId: undefined }],
    ['tokenId a number', { tokenId: { N: '1' } }],
    ['name missing', { name: undefined }],
  ])('%s', async (_, change) => {
    const { token } = generateToken();
    const item: Record<string, AttributeValue | undefined> = {
      [TOKENS_TABLE.partitionKey.name]: { S: hashToken(token) },
      tokenId: { S: 'tok_malformed' },
      name: { S: 'm' },
      scopes: { L: [{ S: 'plants:write' }] },
      createdAt: { S: new Date().toISOString() },
      ...change,
    };
    const raw = new DynamoDBClient(engine.clientConfig);
    await raw.send(
      new PutItemCommand({
        TableName: TOKENS_TABLE.localName,
        Item: Object.fromEntries(
          Object.entries(item).filter((entry): entry is [string, AttributeValue] => !!entry[1]),
        ),
      }),
    );
    raw.destroy();
    expect(await authorize(authorizerEvent(`Bearer ${token}`))).toEqual({ isAuthorized: false });
    expect(logLines.join('\n')).toContain('"reason":"malformed-item"');
  });

  it('the same item well-formed, with scopes as a string set, is allowed (as 1.1.0 stored it: scopes revision 1)', async () => {
    const { token } = generateToken();
    const raw = new DynamoDBClient(engine.clientConfig);
    await raw.send(
      new PutItemCommand({
        TableName: TOKENS_TABLE.localName,
        Item: {
          [TOKENS_TABLE.partitionKey.name]: { S: hashToken(token) },
          tokenId: { S: 'tok_wellformed' },
          name: { S: 'm' },
          scopes: { SS: ['plants:write'] },
          expiresAt: { N: now },
        },
      }),
    );
    raw.destroy();
    expect(await authorize(authorizerEvent(`Bearer ${token}`))).toEqual({
      isAuthorized: true,
      context: { tokenId: 'tok_wellformed', name: 'm', scopes: 'plants:write', scopesRevision: 1 },
    });
  });
});

it('denies a revoked token', async () => {
  const { token } = await issue();
  expect((await authorize(authorizerEvent(`Bearer ${token}`))).isAuthorized).toBe(true);
  await new TokensTable(tokens, TOKENS_TABLE.localName).delete(hashToken(token));
  expect(await authorize(authorizerEvent(`Bearer ${token}`))).toEqual({ isAuthorized: false });
});

it('throws when the table cannot be read: never allows on error', async () => {
  const down = makeDocumentClient({
    endpoint: 'http://127.0.0.1:9',
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
  });
  const failing = makeAuthorizerHandler({ tokens: down, tableName: TOKENS_TABLE.localName });
  const { token } = await issue();
  await expect(failing(authorizerEvent(`Bearer ${token}`))).rejects.toThrow(
    'token table unreadable',
  );
  const missingTable = makeAuthorizerHandler({ tokens, tableName: 'no-such-table' });
  await expect(missingTable(authorizerEvent(`Bearer ${token}`))).rejects.toThrow(
    'token table unreadable',
  );
  down.destroy();
});

it('never logs a token or its hash, whatever the outcome', async () => {
  const valid = await issue();
  const unknown = generateToken();
  const down = makeDocumentClient({
    endpoint: 'http://127.0.0.1:9',
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
    maxAttempts: 1,
  });
  await authorize(authorizerEvent(`Bearer ${valid.token}`));
  await authorize(authorizerEvent(`Bearer ${unknown.token}`));
  await authorize(authorizerEvent(`Basic ${valid.token}`));
  await expect(
    makeAuthorizerHandler({ tokens: down, tableName: 'tokens' })(
      authorizerEvent(`Bearer ${valid.token}`),
    ),
  ).rejects.toThrow();
  const log = logLines.join('\n');
  expect(logLines.length).toBeGreaterThanOrEqual(4);
  for (const secret of [
    valid.token,
    unknown.token,
    hashToken(valid.token),
    hashToken(unknown.token),
  ]) {
    expect(log).not.toContain(secret);
    expect(log).not.toContain(secret.slice(4, 24));
  }
  down.destroy();
});
