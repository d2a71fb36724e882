/**
 * Standard Webhooks 1.0 signing: the `whsec_` secret, the `webhook-id` of a delivery and the
 * `v1,` signature of `<id>.<timestamp>.<body>`. Hand-written on `node:crypto` because it is
 * three lines and the functions carry no dependency for it; the tests and `npm run webhook --
 * listen` verify every signature with the `standardwebhooks` package itself.
 */
import { createHash, createHmac, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';

/** The prefix of a subscriber's secret, as Standard Webhooks writes it. */
export const SECRET_PREFIX = 'whsec_';

/** A secret as the subscriber is shown it: `whsec_` and the base64 of 32 random bytes. */
export const SECRET_FORMAT = /^whsec_[A-Za-z0-9+/]{43}=$/;

/** A new secret: 32 random bytes (Standard Webhooks asks for at least 24). */
export function generateSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

/**
 * The key of a `whsec_` secret: its bytes, as a `KeyObject` (given bytes, Node 24's `createHmac`
 * costs several times more; see `hmacKey` in lambda/aws/sdk-client.ts).
 */
export function secretKey(secret: string): KeyObject {
  if (!SECRET_FORMAT.test(secret))
    throw new Error('a webhook secret must be whsec_ and 32 bytes of base64');
  return createSecretKey(Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64'));
}

/** The `webhook-signature` header of one attempt. */
export function sign(secret: string, webhookId: string, timestamp: number, body: string): string {
  const mac = createHmac('sha256', secretKey(secret))
    .update(`${webhookId}.${timestamp}.${body}`)
    .digest('base64');
  return `v1,${mac}`;
}

/**
 * The `webhook-signature` header of one attempt: one `v1,` signature per secret, space-separated
 * (Standard Webhooks: a receiver accepts the message if any one verifies), newest first.
 */
export function signAll(
  secrets: readonly string[],
  webhookId: string,
  timestamp: number,
  body: string,
): string {
  return secrets.map((secret) => sign(secret, webhookId, timestamp, body)).join(' ');
}

/**
 * The `webhook-id` of one plant to one subscriber, derived from what the tables hold: the
 * subscriber, the plant's id and when it was stored (a plant deleted and created again is
 * stored at another time, so it gets a new id). A fan-out that runs twice and a `webhook
 * replay` queue the same id, and the receiver's deduplication catches it.
 */
export function webhookIdOf(subscriberId: string, plantId: string, createdAt: string): string {
  const digest = createHash('sha256')
    .update(`${subscriberId}\n${plantId}\n${createdAt}`)
    .digest('base64url');
  return `msg_${digest.slice(0, 27)}`;
}
