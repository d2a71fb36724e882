/**
 * Bearer tokens: their format, generation and hashing, and the item that stores one (written by
 * `table.ts`). Shared by the authorizer (which only reads) and the token CLI (which creates,
 * lists and revokes).
 */
import { createHash, randomBytes } from 'node:crypto';
import { PLANTS_DELETE, PLANTS_READ, PLANTS_WRITE, SCOPES_REVISION } from './principal';
import type { TokenItem } from './table';

/** Every token starts with this, so that secret scanners can find leaked ones. */
export const TOKEN_PREFIX = 'pst_';
/** `pst_` and 43 base64url characters: 32 random bytes. */
export const TOKEN_FORMAT = /^pst_[A-Za-z0-9_-]{43}$/;
/** The scopes a token may hold. */
export const ALL_SCOPES: readonly string[] = [PLANTS_READ, PLANTS_WRITE, PLANTS_DELETE];
/** The scopes of a new token unless others are named: deleting must be asked for. */
export const DEFAULT_SCOPES: readonly string[] = [PLANTS_READ, PLANTS_WRITE];

/** The hex SHA-256 of a token, as the table keys it. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** A new token (32 bytes from the CSPRNG) and the public id that names it. */
export function generateToken(): { token: string; tokenId: string } {
  return {
    token: TOKEN_PREFIX + randomBytes(32).toString('base64url'),
    tokenId: `tok_${randomBytes(8).toString('hex')}`,
  };
}

/** The item that makes `token` valid, its scopes meaning what they mean now (`SCOPES_REVISION`). */
export function tokenItem(
  token: string,
  tokenId: string,
  options: { name: string; scopes: readonly string[]; expiresAt?: number; now?: Date },
): TokenItem {
  return {
    hash: hashToken(token),
    tokenId,
    name: options.name,
    scopes: [...options.scopes],
    scopesRevision: SCOPES_REVISION,
    createdAt: (options.now ?? new Date()).toISOString(),
    ...(options.expiresAt === undefined ? {} : { expiresAt: options.expiresAt }),
  };
}
