/**
 * The token check, pure: an `Authorization` header in, a principal or `null` out (with the
 * reason for the log). The table read is passed in; a malformed header never reaches it, a
 * malformed item is denied, and a failing read throws, so no error can ever allow.
 */
import * as v from 'valibot';
import type { Principal } from '../tokens/principal';
import { TOKEN_FORMAT, hashToken } from '../tokens/token';
import { StoredToken } from './stored-token';

/** Reads the item stored under a hash (strongly consistent), as stored, or `undefined`. */
export type TokenLookup = (hash: string) => Promise<Record<string, unknown> | undefined>;

/** The outcome: a principal, or `null` and why (never the token itself). */
export type Verdict =
  | { readonly principal: Principal }
  | {
      readonly principal: null;
      readonly reason: 'malformed' | 'unknown' | 'malformed-item' | 'expired';
      readonly tokenId?: string;
    };

/** The scheme `Bearer` in any case, exactly one space, then the credential. */
const BEARER = /^bearer (.*)$/is;

/** Allows only a well-formed token whose item exists and has not expired. */
export async function verifyToken(
  header: string | undefined,
  lookup: TokenLookup,
  now: Date = new Date(),
): Promise<Verdict> {
  const token = BEARER.exec(header ?? '')?.[1];
  if (token === undefined || !TOKEN_FORMAT.test(token)) {
    return { principal: null, reason: 'malformed' };
  }
  const item = await lookup(hashToken(token));
  if (!item) return { principal: null, reason: 'unknown' };
  const parsed = v.safeParse(StoredToken, item);
  if (!parsed.success) {
    const tokenId = typeof item.tokenId === 'string' ? { tokenId: item.tokenId } : {};
    return { principal: null, reason: 'malformed-item', ...tokenId };
  }
  const stored = parsed.output;
  if (stored.expiresAt !== undefined && stored.expiresAt * 1000 <= now.getTime()) {
    return { principal: null, reason: 'expired', tokenId: stored.tokenId };
  }
  const { tokenId, name, scopes, scopesRevision } = stored;
  return { principal: { tokenId, name, scopes: scopes.join(' '), scopesRevision } };
}
