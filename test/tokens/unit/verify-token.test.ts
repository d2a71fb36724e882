/**
 * `verifyToken` with the table read replaced by the item it returns: every malformed stored
 * item is denied as `malformed-item`, whatever its other fields say, and the well-formed
 * spellings (a list or a string set of scopes, `expiresAt` as the document client reads it)
 * are allowed or expired as their values say. A token's scopes revision is 1 unless it stores
 * one (1.0.0 and 1.1.0 stored none).
 */
import { NumberValue } from '@aws-sdk/lib-dynamodb';
import { verifyToken } from '../../../lambda/authorizer/verify-token';
import { generateToken, hashToken } from '../../../lambda/tokens/token';

const { token } = generateToken();
const header = `Bearer ${token}`;
const now = new Date('2026-01-01T00:00:00Z');
const nowSeconds = now.getTime() / 1000;
const valid = {
  hash: hashToken(token),
  tokenId: 'tok_1',
  name: 'n',
  scopes: ['plants:write'],
};

const verify = (item: Record<string, unknown> | undefined) =>
  verifyToken(header, async (hash) => (hash === hashToken(token) ? item : undefined), now);

describe('a malformed stored item is denied', () => {
  it.each<[string, Record<string, unknown>]>([
    ['expiresAt a string', { expiresAt: 'soon' }],
    ['expiresAt a numeric string', { expiresAt: String(nowSeconds + 3600) }],
    ['expiresAt null', { expiresAt: null }],
    ['expiresAt NaN', { expiresAt: NaN }],
    ['expiresAt Infinity', { expiresAt: Infinity }],
    ['expiresAt a boolean', { expiresAt: true }],
    ['expiresAt a map that looks like a NumberValue', { expiresAt: { value: '9999999999' } }],
    ['expiresAt a list', { expiresAt: [nowSeconds + 3600] }],
    ['scopes a string', { scopes: 'plants:write' }],
    ['scopes null', { scopes: null }],
    ['scopes missing', { scopes: undefined }],
    ['scopes with a number', { scopes: ['plants:write', 1] }],
    ['scopes a set of numbers', { scopes: new Set([1]) }],
    ['scopes a map', { scopes: { 0: 'plants:write' } }],
    ['a scope with a space (would smuggle another)', { scopes: ['plants:write plants:delete'] }],
    ['an empty scope', { scopes: [''] }],
    ['tokenId missing', { tokenId: undefined }],
    ['tokenId a number', { tokenId: 1 }],
    ['name missing', { name: undefined }],
    ['name null', { name: null }],
    ['scopesRevision a string', { scopesRevision: '2' }],
    ['scopesRevision 0', { scopesRevision: 0 }],
    ['scopesRevision a fraction', { scopesRevision: new NumberValue('1.5') }],
    ['scopesRevision null', { scopesRevision: null }],
  ])('%s', async (_, change) => {
    const item: Record<string, unknown> = Object.fromEntries(
      Object.entries({ ...valid, ...change }).filter(([, value]) => value !== undefined),
    );
    const verdict = await verify(item);
    expect(verdict).toMatchObject({ principal: null, reason: 'malformed-item' });
    expect(verdict).toEqual(
      typeof item.tokenId === 'string'
        ? { principal: null, reason: 'malformed-item', tokenId: item.tokenId }
        : { principal: null, reason: 'malformed-item' },
    );
  });
});

describe('well-formed items', () => {
  it.each<[string, Record<string, unknown>, string]>([
    ['scopes as a list', {}, 'plants:write'],
    [
      'scopes as a string set',
      { scopes: new Set(['plants:write', 'plants:read']) },
      'plants:write plants:read',
    ],
    ['no scopes at all (an empty list)', { scopes: [] }, ''],
    [
      'expiresAt later, as NumberValue',
      { expiresAt: new NumberValue(String(nowSeconds + 1)) },
      'plants:write',
    ],
    ['expiresAt later, as a number', { expiresAt: nowSeconds + 1 }, 'plants:write'],
    ['unknown attributes ignored', { createdAt: 'x', note: { a: 1 } }, 'plants:write'],
  ])('%s: allowed', async (_, change, scopes) => {
    expect(await verify({ ...valid, ...change })).toEqual({
      principal: { tokenId: 'tok_1', name: 'n', scopes, scopesRevision: 1 },
    });
  });

  it.each([
    ['NumberValue', new NumberValue('2'), 2],
    ['number', 2, 2],
    ['a later revision', new NumberValue('3'), 3],
  ])('scopesRevision as %s: passed on', async (_, scopesRevision, revision) => {
    expect(await verify({ ...valid, scopesRevision })).toEqual({
      principal: { tokenId: 'tok_1', name: 'n', scopes: 'plants:write', scopesRevision: revision },
    });
  });

  it.each([
    ['NumberValue', new NumberValue(String(nowSeconds))],
    ['number', nowSeconds - 1],
  ])('expiresAt now or earlier, as %s: expired', async (_, expiresAt) => {
    expect(await verify({ ...valid, expiresAt })).toEqual({
      principal: null,
      reason: 'expired',
      tokenId: 'tok_1',
    });
  });

  it('no item: unknown', async () => {
    expect(await verify(undefined)).toEqual({ principal: null, reason: 'unknown' });
  });
});
