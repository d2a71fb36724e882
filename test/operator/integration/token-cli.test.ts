/**
 * `npm run token` end to end against a real engine, in-process (runCommand: its main, by the CLI
 * exit rule): create → authorize → list → revoke → denied, and one clear line with a non-zero
 * exit code for every mistake.
 */
import { makeAuthorizerHandler } from '../../../lambda/authorizer/handler';
import { makeDocumentClient } from '../../../lambda/aws/dynamodb';
import { TOKEN_FORMAT, generateToken, hashToken, tokenItem } from '../../../lambda/tokens/token';
import { TOKENS_TABLE, TokensTable } from '../../../lambda/tokens/table';
import type { Engine } from '../../../lib/local/dynamodb/engine';
import { authorizerEvent } from '../../support/events';
import { startOperatorEngine, type OperatorEngine } from '../../support/operator-engine';
import { runBin, runCommand } from '../../support/run-cli';

let engine: Engine;
let running: OperatorEngine;
let env: Record<string, string>;
const token = (...args: string[]) => runCommand('token', args, env);
// The one child process (--aws without a region: the AWS SDK reads the process's environment)
// compiles the CLI at start: seconds on a busy two-core machine.

beforeAll(async () => {
  running = await startOperatorEngine();
  ({ engine, env } = running);
});
afterAll(async () => {
  await running.close();
});

it('create, list and revoke a token; the authorizer follows', async () => {
  const tokens = makeDocumentClient(engine.clientConfig);
  const authorize = makeAuthorizerHandler({ tokens, tableName: TOKENS_TABLE.localName });
  jest.spyOn(console, 'log').mockImplementation(() => undefined);

  const created = await token('create', '--name', 'ci laptop', '--expires-in', '30d');
  expect(created.code).toBe(0);
  const secret = created.stdout.trim();
  expect(created.stdout).toBe(`${secret}\n`);
  expect(secret).toMatch(TOKEN_FORMAT);
  const tokenId = /tokenId (tok_[0-9a-f]{16})/.exec(created.stderr)?.[1];
  expect(tokenId).toBeDefined();
  expect(created.stderr).toMatch(/scopes plants:read plants:write {2}expires \d{4}-\d\d-\d\dT/);

  expect(await authorize(authorizerEvent(`Bearer ${secret}`))).toEqual({
    isAuthorized: true,
    context: { tokenId, name: 'ci laptop', scopes: 'plants:read plants:write', scopesRevision: 2 },
  });

  const listed = await token('list');
  expect(listed.code).toBe(0);
  expect(listed.stdout.split('\n')[0]).toBe('tokenId\tname\tscopes\tcreated\texpires\trevision');
  const line = listed.stdout.split('\n').find((l) => l.startsWith(`${tokenId}\t`));
  expect(line).toMatch(
    /^tok_[0-9a-f]{16}\tci laptop\tplants:read,plants:write\t\d{4}-.*Z\t\d{4}-.*Z\t2$/,
  );
  expect(listed.stdout + listed.stderr).not.toContain(secret);
  expect(listed.stdout + listed.stderr).not.toContain(hashToken(secret));

  const revoked = await token('revoke', tokenId!);
  expect(revoked).toMatchObject({ code: 0, stdout: '' });
  expect(await authorize(authorizerEvent(`Bearer ${secret}`))).toEqual({ isAuthorized: false });
  expect((await token('list')).stdout).not.toContain(tokenId);
  tokens.destroy();
});

it('a token without expiry lists as never', async () => {
  const created = await token('create', '--name', 'forever');
  expect(created.stderr).toContain('expires never');
  expect((await token('list')).stdout).toMatch(/\tforever\tplants:read,plants:write\t\S+\tnever/);
});

it('--scopes names them: all three, or one; the authorizer passes exactly those', async () => {
  const tokens = makeDocumentClient(engine.clientConfig);
  const authorize = makeAuthorizerHandler({ tokens, tableName: TOKENS_TABLE.localName });
  jest.spyOn(console, 'log').mockImplementation(() => undefined);
  for (const [scopes, expected] of [
    ['plants:read,plants:write,plants:delete', 'plants:read plants:write plants:delete'],
    ['plants:delete', 'plants:delete'],
    ['plants:read,plants:read', 'plants:read'],
  ]) {
    const created = await token('create', '--name', `scoped ${scopes}`, '--scopes', scopes!);
    expect(created.code).toBe(0);
    expect(created.stderr).toContain(`scopes ${expected}  `);
    const answer = await authorize(authorizerEvent(`Bearer ${created.stdout.trim()}`));
    expect(answer).toMatchObject({ isAuthorized: true, context: { scopes: expected } });
    expect((await token('list')).stdout).toContain(
      `\tscoped ${scopes}\t${expected!.replaceAll(' ', ',')}\t`,
    );
  }
  tokens.destroy();
});

it('a token made before reads existed keeps exactly its scopes', async () => {
  const tokens = makeDocumentClient(engine.clientConfig);
  const authorize = makeAuthorizerHandler({ tokens, tableName: TOKENS_TABLE.localName });
  jest.spyOn(console, 'log').mockImplementation(() => undefined);
  const { token: old, tokenId } = generateToken();
  await new TokensTable(tokens, TOKENS_TABLE.localName).put(
    tokenItem(old, tokenId, { name: 'old', scopes: ['plants:write'] }),
  );
  expect((await token('create', '--name', 'new')).code).toBe(0);
  expect((await token('list')).stdout).toContain(`${tokenId}\told\tplants:write\t`);
  expect(await authorize(authorizerEvent(`Bearer ${old}`))).toMatchObject({
    context: { scopes: 'plants:write' },
  });
  tokens.destroy();
});

it.each([
  ['90m', 90 * 60],
  ['12h', 12 * 3600],
  ['3650d', 3650 * 86_400],
])('--expires-in %s is that long from now', async (duration, seconds) => {
  const before = Math.floor(Date.now() / 1000);
  const created = await token('create', '--name', `for ${duration}`, '--expires-in', duration);
  expect(created.code).toBe(0);
  const expires = Date.parse(/expires (\S+)/.exec(created.stderr)![1]!) / 1000;
  expect(expires - before).toBeGreaterThanOrEqual(seconds);
  expect(expires - before).toBeLessThan(seconds + 60);
});

it('revoking an unknown id is not found: exit 1, one line, no usage hint', async () => {
  const result = await token('revoke', 'tok_0000000000000000');
  expect(result).toMatchObject({ code: 1, stdout: '' });
  expect(result.stderr).toMatch(
    /^token: no token with id or name tok_0000000000000000 in the local engine at http:\/\/127\.0\.0\.1:\d+\n$/,
  );
});

it('show and revoke --name find a token by its name; a shared name asks for the id', async () => {
  const created = await token('create', '--name', 'build\tbox', '--scopes', 'plants:read');
  const tokenId = /tokenId (tok_[0-9a-f]{16})/.exec(created.stderr)![1]!;
  const secret = created.stdout.trim();

  for (const wanted of [tokenId, 'build\tbox']) {
    const result = await token('show', wanted);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toMatch(
      new RegExp(
        `^tokenId: +${tokenId}\nname: +build box\nscopes: +plants:read\ncreated: +\\d{4}-\\S+Z\nexpires: +never\nrevision: +2\n$`,
      ),
    );
    expect(result.stdout).not.toContain(secret);
  }
  expect(await token('show', 'nobody')).toMatchObject({
    code: 1,
    stderr: expect.stringMatching(/^token: no token with id or name nobody in the local engine/),
  });

  await token('create', '--name', 'twin');
  await token('create', '--name', 'twin');
  const ambiguous = await token('revoke', '--name', 'twin');
  expect(ambiguous.code).toBe(1);
  expect(ambiguous.stderr).toMatch(
    /^token: 2 tokens are named twin \(tok_[0-9a-f]{16}, tok_[0-9a-f]{16}\): name one by its tokenId\n$/,
  );
  expect((await token('list')).stdout.match(/\ttwin\t/g)).toHaveLength(2);

  const revoked = await token('revoke', '--name', 'build\tbox');
  expect(revoked).toMatchObject({ code: 0, stdout: '' });
  expect(revoked.stderr).toContain(`revoked ${tokenId} (build box)`);
  expect((await token('list')).stdout).not.toContain(tokenId);
});

it('revoke given the token itself says it wants the id, and never prints the token', async () => {
  const created = await token('create', '--name', 'pasted by mistake');
  const secret = created.stdout.trim();
  for (const args of [
    ['revoke', secret],
    ['revoke', '--name', secret],
    ['show', secret],
  ]) {
    const result = await token(...args);
    expect(result).toMatchObject({ code: 2, stdout: '' });
    expect(result.stderr).toMatch(
      /^token: (revoke|show) wants a tokenId \(tok_\.\.\., see npm run token -- list\) or a name, not the token itself/,
    );
    expect(result.stderr).not.toContain(secret);
    expect(result.stderr).not.toContain(secret.slice(4, 20));
  }
  expect((await token('list')).stdout).toContain('\tpasted by mistake\t');
});

it('list marks a token whose expiry has passed (the TTL removes it only days later)', async () => {
  const tokens = makeDocumentClient(engine.clientConfig);
  const { token: old, tokenId } = generateToken();
  const expiresAt = Math.floor(Date.now() / 1000) - 60;
  await new TokensTable(tokens, TOKENS_TABLE.localName).put(
    tokenItem(old, tokenId, { name: 'lapsed', scopes: ['plants:read'], expiresAt }),
  );
  tokens.destroy();
  const expiry = new Date(expiresAt * 1000).toISOString();
  expect((await token('list')).stdout).toContain(`${tokenId}\tlapsed\tplants:read\t`);
  expect((await token('list')).stdout).toContain(`\t${expiry} (expired)\t2\n`);
  expect((await token('show', tokenId)).stdout).toContain(`expires:  ${expiry} (expired)\n`);
  const live = await token('create', '--name', 'fresh', '--expires-in', '1d');
  const liveId = /tokenId (tok_[0-9a-f]{16})/.exec(live.stderr)![1]!;
  const line = (await token('list')).stdout.split('\n').find((l) => l.startsWith(liveId));
  expect(line).toMatch(/\t\d{4}-\S+Z\t2$/);
});

it('--aws without a region says where to give one', async () => {
  const result = await runBin('token', ['list', '--aws', '--table', 'Tokens'], {
    AWS_REGION: undefined,
    AWS_DEFAULT_REGION: undefined,
    AWS_PROFILE: undefined,
    AWS_CONFIG_FILE: '/nonexistent/config',
    AWS_SHARED_CREDENTIALS_FILE: '/nonexistent/credentials',
  });
  expect(result).toEqual({
    code: 1,
    stdout: '',
    stderr: "token: no AWS region: pass --region <r> (the stack's region) or set AWS_REGION\n",
  });
});

const DURATION =
  /^token: --expires-in takes minutes, hours or days like 90m, 12h or 30d, at most 3650d; not /;

it.each([
  [['create'], 2, /^token: create needs --name <label>/],
  [['create', '--name', 'x', '--expires-in', '3w'], 2, DURATION],
  [['create', '--name', 'x', '--expires-in', '-5d'], 2, DURATION],
  [['create', '--name', 'x', '--expires-in=-5d'], 2, DURATION],
  [['create', '--name', 'x', '--expires-in', '3651d'], 2, DURATION],
  [['create', '--name', 'x', '--expires-in', '0h'], 2, DURATION],
  [['create', '--name', 'x', '--expires-in'], 2, /^token: --expires-in needs a value/],
  [
    ['create', '--name', 'x', '--scopes', 'plants:read,plants:admin'],
    2,
    /^token: unknown scope plants:admin; known: plants:read, plants:write, plants:delete/,
  ],
  [['create', '--name', 'x', '--color', 'red'], 2, /^token: unknown option --color/],
  [['destroy'], 2, /^token: unknown command destroy/],
  [[], 2, /^token: a command is required/],
  [['revoke'], 2, /^token: revoke needs exactly one tokenId, or --name <name> alone/],
  [['revoke', 'tok_1', '--name', 'x'], 2, /^token: revoke needs exactly one tokenId, or --name/],
  [['show'], 2, /^token: show needs exactly one tokenId or name/],
  [['list', '--aws'], 2, /^token: --aws needs --table <TokensTableName>/],
])('%j exits %i with one clear line', async (args, code, message) => {
  const result = await token(...args);
  expect(result.code).toBe(code);
  expect(result.stderr).toMatch(message);
  expect(result.stderr).toMatch(/^[^\n]+ \(see npm run token -- --help\)\n$/);
  expect(result.stdout).toBe('');
});

it('--help prints usage and exits 0', async () => {
  const result = await token('--help');
  expect(result.code).toBe(0);
  expect(result.stdout).toContain('Usage: npm run token -- <command>');
});

it('an unreachable engine is one line and exit 1', async () => {
  const result = await runCommand('token', ['list'], { PLANT_STORE_DB_PORT: '9' });
  expect(result).toMatchObject({ code: 1, stdout: '' });
  expect(result.stderr).toBe(
    'token: cannot reach the local engine at http://127.0.0.1:9 (from PLANT_STORE_DB_PORT); start npm start (or npm run db), or set PLANT_STORE_DB_PORT to the engine port its banner prints\n',
  );
});

it('a missing table is one line and exit 1', async () => {
  const bare = await startOperatorEngine({ tables: [] });
  const result = await runCommand('token', ['list'], bare.env);
  await bare.close();
  expect(result.code).toBe(1);
  expect(result.stderr).toMatch(
    /^token: the tokens table does not exist in the local engine at http:\/\/127\.0\.0\.1:\d+ \(start the engine/,
  );
  expect(result.stderr.trim().split('\n')).toHaveLength(1);
});
