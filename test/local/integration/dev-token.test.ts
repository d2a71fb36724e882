/**
 * The dev token against a real engine: one `tok_dev` item at a time, a replaced token denied by
 * the authorizer, an unchanged one left as stored (its `createdAt` kept), and the file kept 0600.
 */
import { PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeAuthorizerHandler } from '../../../lambda/authorizer/handler';
import { makeDocumentClient } from '../../../lambda/aws/dynamodb';
import { generateToken, tokenItem } from '../../../lambda/tokens/token';
import { TOKENS_TABLE, TokensTable } from '../../../lambda/tokens/table';
import { startEngine, type Engine } from '../../../lib/local/dynamodb/engine';
import { devTokenFile, ensureDevToken } from '../../../lib/local/dev/dev-token';
import { authorizerEvent } from '../../support/events';

let engine: Engine;
let tokens: ReturnType<typeof makeDocumentClient>;
let dataDir: string;
const TableName = TOKENS_TABLE.localName;
const DEV_TOKEN_ID = 'tok_dev';

beforeAll(async () => {
  engine = await startEngine();
  tokens = makeDocumentClient(engine.clientConfig);
});
afterAll(async () => {
  tokens.destroy();
  await engine.close();
});
beforeEach(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'plant-store-dev-token-'));
  const table = new TokensTable(tokens, TableName);
  for (const item of await table.scan()) await table.delete(item.hash);
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

const devItems = async () =>
  ((await tokens.send(new ScanCommand({ TableName, ConsistentRead: true }))).Items ?? []).filter(
    (item) => item.tokenId === DEV_TOKEN_ID,
  );
const allowed = async (token: string) => {
  const authorize = makeAuthorizerHandler({ tokens, tableName: TableName });
  const spy = jest.spyOn(console, 'log').mockImplementation(() => undefined);
  try {
    return (await authorize(authorizerEvent(`Bearer ${token}`))).isAuthorized;
  } finally {
    spy.mockRestore();
  }
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it('creates the token file (0600) and one item on first start, and leaves both alone after', async () => {
  const token = await ensureDevToken({ dataDir }, engine.clientConfig);
  expect(readFileSync(devTokenFile(dataDir), 'utf8')).toBe(`${token}\n`);
  expect(statSync(devTokenFile(dataDir)).mode & 0o777).toBe(0o600);
  const [first, ...others] = await devItems();
  expect(others).toEqual([]);
  await sleep(5);
  expect(await ensureDevToken({ dataDir }, engine.clientConfig)).toBe(token);
  expect(await devItems()).toEqual([first]);
  expect(await allowed(token)).toBe(true);
});

it('a new token in the file replaces the old one: one item, the old token denied', async () => {
  const old = await ensureDevToken({ dataDir }, engine.clientConfig);
  const { token: fresh } = generateToken();
  writeFileSync(devTokenFile(dataDir), `${fresh}\n`);
  expect(await ensureDevToken({ dataDir }, engine.clientConfig)).toBe(fresh);
  expect((await devItems()).length).toBe(1);
  expect(await allowed(old)).toBe(false);
  expect(await allowed(fresh)).toBe(true);
});

it('a deleted file gives a new token, replacing the old one', async () => {
  const old = await ensureDevToken({ dataDir }, engine.clientConfig);
  rmSync(devTokenFile(dataDir));
  const fresh = await ensureDevToken({ dataDir }, engine.clientConfig);
  expect(fresh).not.toBe(old);
  expect((await devItems()).length).toBe(1);
  expect(await allowed(old)).toBe(false);
});

it('PLANT_STORE_DEV_TOKEN replaces the file token and is kept in the file: the next start without it keeps it', async () => {
  const fromFile = await ensureDevToken({ dataDir }, engine.clientConfig);
  const { token } = generateToken();
  expect(await ensureDevToken({ dataDir, devToken: token }, engine.clientConfig)).toBe(token);
  // The file holds the token the runtime accepts, never one it refuses.
  expect(readFileSync(devTokenFile(dataDir), 'utf8')).toBe(`${token}\n`);
  expect(statSync(devTokenFile(dataDir)).mode & 0o777).toBe(0o600);
  expect((await devItems()).length).toBe(1);
  expect(await allowed(fromFile)).toBe(false);
  expect(await allowed(token)).toBe(true);
  // A plain start afterwards (the sam local flow's next npm start): the same token, still valid.
  expect(await ensureDevToken({ dataDir }, engine.clientConfig)).toBe(token);
  expect(await allowed(token)).toBe(true);
});

it('removes every stale tok_dev item left by older versions, keeps other tokens', async () => {
  const stale = [generateToken().token, generateToken().token];
  for (const token of stale) {
    await new TokensTable(tokens, TableName).put(
      tokenItem(token, DEV_TOKEN_ID, { name: 'dev', scopes: ['plants:write'] }),
    );
  }
  const other = generateToken();
  await new TokensTable(tokens, TableName).put(
    tokenItem(other.token, other.tokenId, { name: 'x', scopes: ['plants:write'] }),
  );
  const token = await ensureDevToken({ dataDir }, engine.clientConfig);
  expect((await devItems()).length).toBe(1);
  for (const old of stale) expect(await allowed(old)).toBe(false);
  expect(await allowed(token)).toBe(true);
  expect(await allowed(other.token)).toBe(true);
});

it('rewrites an unchanged token whose item lost its scopes, keeping createdAt', async () => {
  const token = await ensureDevToken({ dataDir }, engine.clientConfig);
  const [item] = await devItems();
  await tokens.send(new PutCommand({ TableName, Item: { ...item, scopes: [] } }));
  await sleep(5);
  await ensureDevToken({ dataDir }, engine.clientConfig);
  const [rewritten] = await devItems();
  expect(rewritten).toEqual(item);
  expect(await allowed(token)).toBe(true);
});
