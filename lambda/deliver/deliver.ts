/**
 * One delivery attempt of the newPlant webhook: look the subscriber up (gone: nothing to do),
 * sign the body for this attempt, POST it, and on failure say when to try again — the
 * schedule's next delay, or none after the last attempt (the queue then dead-letters it).
 */
import type { SQSRecord } from 'aws-lambda';
import type { SubscriptionsTable } from '../shared/webhook/subscriptions-table';
import { parseDeliveryMessage } from '../shared/webhook/message';
import { MAX_ATTEMPTS, retryDelaySeconds } from '../shared/webhook/schedule';
import type { SecretBox } from '../shared/webhook/secrets';
import { sign } from '../shared/webhook/signature';
import type { AddressPolicy } from '../shared/webhook/address-policy';
import { post, succeeded, type Attempt } from '../shared/webhook/post';

/** What a delivery needs. */
export interface DeliverDeps {
  readonly subscriptions: Pick<SubscriptionsTable, 'get'>;
  readonly secrets: SecretBox;
  readonly policy: AddressPolicy;
  readonly post?: typeof post;
  readonly now?: () => number;
}

/** What became of one attempt, with what its log line says. */
export interface DeliveryOutcome {
  readonly outcome: 'delivered' | 'retry' | 'dead-lettered' | 'dropped';
  /** For `retry`: seconds until the next attempt; for `dead-lettered`: 0. */
  readonly retryAfterSeconds?: number;
  readonly webhookId?: string;
  readonly subscriberId?: string;
  readonly plantId?: string;
  readonly attempt: number;
  /** The receiver's status, or why there was none. */
  readonly status?: number;
  readonly failure?: string;
  /** The receiver's host (never the whole URL: its path or query may be a credential). */
  readonly host?: string;
}

/** Opened secrets, by sealed value: KMS is asked once per subscriber per sandbox. */
const opened = new Map<string, string>();

/** Runs one attempt of the delivery a queue message carries. */
export async function deliver(record: SQSRecord, deps: DeliverDeps): Promise<DeliveryOutcome> {
  const attempt = Number(record.attributes.ApproximateReceiveCount) || 1;
  const message = parseDeliveryMessage(record.body);
  if (!message) return failed({ attempt, failure: 'the message is not a delivery' });
  const { webhookId, subscriberId, plantId, body } = message;
  const subscriber = await deps.subscriptions.get(subscriberId);
  if (!subscriber) return { outcome: 'dropped', attempt, webhookId, subscriberId, plantId };
  const url = new URL(subscriber.url);
  let secret = opened.get(subscriber.secret);
  if (secret === undefined) {
    secret = await deps.secrets.open(subscriber.secret, subscriberId);
    opened.set(subscriber.secret, secret);
  }
  const timestamp = Math.floor((deps.now ?? Date.now)() / 1000);
  const result: Attempt = await (deps.post ?? post)(
    url,
    {
      'content-type': 'application/json',
      'user-agent': 'plant-store-webhook/1',
      'webhook-id': webhookId,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': sign(secret, webhookId, timestamp, body),
      // Informational, not signed: which attempt this is (1 to MAX_ATTEMPTS).
      'webhook-attempt': String(attempt),
    },
    body,
    deps.policy,
  );
  const fields = { attempt, webhookId, subscriberId, plantId, host: url.host, ...result };
  return succeeded(result) ? { outcome: 'delivered', ...fields } : failed(fields);
}

function failed(fields: Omit<DeliveryOutcome, 'outcome'>): DeliveryOutcome {
  const delay = fields.attempt >= MAX_ATTEMPTS ? undefined : retryDelaySeconds(fields.attempt);
  return delay === undefined
    ? { outcome: 'dead-lettered', retryAfterSeconds: 0, ...fields }
    : { outcome: 'retry', retryAfterSeconds: delay, ...fields };
}
