/**
 * The cursor of GET /plants: base64url (no padding) of the canonical decimal id of the last
 * key a page's Scan evaluated. Opaque to clients; decoded strictly, so that a made-up or
 * tampered value is refused rather than handed to DynamoDB.
 */
const BASE64URL = /^[A-Za-z0-9_-]+$/;
/** Canonical decimal: no `+`, no leading zero, no `-0`, no fraction or exponent; at most 19 digits. */
export const CANONICAL_INTEGER = /^(?:0|-?[1-9]\d{0,18})$/;

/** The cursor that resumes a walk after the plant `id`. */
export function encodeCursor(id: bigint): string {
  return Buffer.from(id.toString(), 'utf8').toString('base64url');
}

/** The id a cursor resumes after, or `undefined` when `text` cannot be a cursor this service made. */
export function decodeCursor(text: string): bigint | undefined {
  if (!BASE64URL.test(text)) return undefined;
  const decoded = Buffer.from(text, 'base64url').toString('latin1');
  // Base64 has several spellings of some inputs (trailing bits); only the one we write counts.
  if (Buffer.from(decoded, 'latin1').toString('base64url') !== text) return undefined;
  if (!CANONICAL_INTEGER.test(decoded)) return undefined;
  const id = BigInt(decoded);
  // Within int64 exactly when wrapping to 64 bits changes nothing.
  return BigInt.asIntN(64, id) === id ? id : undefined;
}
