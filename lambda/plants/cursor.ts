/**
 * The cursor of GET /plants: base64url (no padding) of the canonical decimal id of the last
 * key a page evaluated; a page of one tag's plants adds `.` and the tag's digest, so that its
 * cursor resumes that tag's walk only. Opaque to clients; decoded strictly, so that a made-up or
 * tampered value is refused rather than handed to DynamoDB.
 */
import { createHash } from 'node:crypto';

const BASE64URL = /^[A-Za-z0-9_-]+$/;
/** Canonical decimal: no `+`, no leading zero, no `-0`, no fraction or exponent; at most 19 digits. */
export const CANONICAL_INTEGER = /^(?:0|-?[1-9]\d{0,18})$/;
/** The digest's length in base64url characters (12 bytes: a tag is told from another, not hidden). */
const DIGEST = /^[A-Za-z0-9_-]{16}$/;

/** Where a walk resumes: after the plant `id`, within the tag whose digest is `tag` if any. */
export interface Cursor {
  readonly id: bigint;
  readonly tag?: string;
}

/** The digest a cursor of `tag`'s walk carries. */
export function tagDigest(tag: string): string {
  return createHash('sha256').update(tag, 'utf8').digest().subarray(0, 12).toString('base64url');
}

/** The cursor that resumes a walk after the plant `id` (within `tag`'s plants, when given). */
export function encodeCursor(id: bigint, tag?: string): string {
  const text = tag === undefined ? id.toString() : `${id}.${tagDigest(tag)}`;
  return Buffer.from(text, 'utf8').toString('base64url');
}

/** Where a cursor resumes, or `undefined` when `text` cannot be a cursor this service made. */
export function decodeCursor(text: string): Cursor | undefined {
  if (!BASE64URL.test(text)) return undefined;
  const decoded = Buffer.from(text, 'base64url').toString('latin1');
  // Base64 has several spellings of some inputs (trailing bits); only the one we write counts.
  if (Buffer.from(decoded, 'latin1').toString('base64url') !== text) return undefined;
  const [digits = '', tag, ...rest] = decoded.split('.');
  if (rest.length > 0 || (tag !== undefined && !DIGEST.test(tag))) return undefined;
  if (!CANONICAL_INTEGER.test(digits)) return undefined;
  const id = BigInt(digits);
  // Within int64 exactly when wrapping to 64 bits changes nothing.
  if (BigInt.asIntN(64, id) !== id) return undefined;
  return tag === undefined ? { id } : { id, tag };
}
