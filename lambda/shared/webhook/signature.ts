/**
 * Standard Webhooks 1.0 signing: the `whsec_` secret, the `webhook-id` of a delivery and the
 * `v1,` signature of `<id>.<timestamp>.<body>`. Hand-written on `node:crypto` because it is
 * three lines and the functions carry no dependency for it; the tests and `npm run webhook --
 * listen` verify every signature with the `standardwebhooks` package itself.
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';

/** The prefix of a subscriber's secret, as Standard Webhooks writes it. */
export const SECRET_PREFIX = 'whsec_';

/** A secret as the subscriber is shown it: `whsec_` and the base64 of 32 random bytes. */
export const SECRET_FORMAT = /^whsec_[A-Za-z0-9+/]{43}=$/;

/** A new secret: 32 random bytes (Standard Webhooks asks for at least 24). */
export function generateSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

/** The key bytes of a `whsec_` secret. */
export function secretKey(secret: string): Buffer {
  if (!SECRET_FORMAT.test(secret))
    throw new Error('a webhook secret must be whsec_ and 32 bytes of base64');
  return Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
}

/** The `webhook-signature` header of one attempt. */
export function sign(secret: string, webhookId: string, timestamp: number, body: string): string {
  const mac = createHmac('sha256', secretKey(secret))
    .update(`${webhookId}.${timestamp}.${body}`)
    .digest('base64');
  return `v1,${mac}`;
}

/**
 * The `webhook-id` of one plant to one subscriber: derived from the stream record's id (one per
 * stored plant, a new one if the id is deleted and created again) and the subscriber, so that a
 * fan-out that runs twice queues the same id and the receiver's deduplication catches it.
 */
export function webhookIdOf(streamEventId: string, subscriberId: string): string {
  const digest = createHash('sha256')
    .update(`${streamEventId}\n${subscriberId}`)
    .digest('base64url');
  return `msg_${digest.slice(0, 27)}`;
}
