/**
 * A subscriber's latest attempts, as `webhook attempts` shows them: kept apart from the
 * subscriber's item (on the item `<subscriberId>#attempts` of the subscriptions table), so that
 * the deliverer's frequent writes to the subscriber's item bill its few hundred bytes, not these
 * 2 KB. Subscribers recorded before kept them on their own item (`recentAttempts`): read there
 * until the first write here.
 */
import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { SUBSCRIPTIONS_TABLE } from '../aws/tables';
import { RECENT_ATTEMPTS_KEPT } from './health';

const KEY = SUBSCRIPTIONS_TABLE.partitionKey.name;

/** One attempt as `webhook attempts` shows it. */
export interface AttemptRecord {
  /** When it started (ISO time). */
  readonly at: string;
  readonly webhookId: string;
  /** The receiver's attempt number for this delivery (1 is the first). */
  readonly attempt: number;
  /** How long it took, in ms. */
  readonly ms: number;
  /** The receiver's status, when it answered. */
  readonly status?: number;
  /** Why there was no status (a timeout, a refused connection). */
  readonly failure?: string;
}

/** The key of the item that keeps a subscriber's attempts (never a subscriber id: those have no `#`). */
export function attemptsKey(subscriberId: string): string {
  return `${subscriberId}#attempts`;
}

/** The newest `attempts` (in the order they ended) before `earlier` (newest first), capped. */
export function latestAttempts(
  attempts: readonly AttemptRecord[],
  earlier: readonly AttemptRecord[],
): AttemptRecord[] {
  return [...attempts.map(recordOf).reverse(), ...earlier].slice(0, RECENT_ATTEMPTS_KEPT);
}

/** Reads a subscriber's latest attempts, newest first; `undefined` when it has none recorded. */
export async function readAttempts(
  client: DynamoDBDocumentClient,
  tableName: string,
  subscriberId: string,
): Promise<AttemptRecord[] | undefined> {
  const { Item } = await client.send(
    new GetCommand({
      TableName: tableName,
      Key: { [KEY]: attemptsKey(subscriberId) },
      ConsistentRead: true,
    }),
  );
  return Item ? decodeAttempts(Item.recentAttempts) : undefined;
}

/** Replaces a subscriber's latest attempts (newest first). */
export async function writeAttempts(
  client: DynamoDBDocumentClient,
  tableName: string,
  subscriberId: string,
  recent: readonly AttemptRecord[],
): Promise<void> {
  await client.send(
    new UpdateCommand({
      TableName: tableName,
      Key: { [KEY]: attemptsKey(subscriberId) },
      UpdateExpression: 'SET recentAttempts = :recent',
      ExpressionAttributeValues: { ':recent': recent.map(dropUndefined) },
    }),
  );
}

/** A list of attempts as stored (numbers wrapped by the document client). */
export function decodeAttempts(value: unknown): AttemptRecord[] {
  return Array.isArray(value) ? (value as Record<string, unknown>[]).map(decodeAttempt) : [];
}

/** An attempt as kept: without the batch's `ok` flag. */
function recordOf({ at, webhookId, attempt, ms, status, failure }: AttemptRecord): AttemptRecord {
  return dropUndefined({ at, webhookId, attempt, ms, status, failure });
}

function decodeAttempt(item: Record<string, unknown>): AttemptRecord {
  return dropUndefined({
    at: String(item.at),
    webhookId: String(item.webhookId),
    attempt: numberOf(item.attempt) ?? 0,
    ms: numberOf(item.ms) ?? 0,
    status: numberOf(item.status),
    failure: typeof item.failure === 'string' ? item.failure : undefined,
  });
}

/** `value` without its `undefined` members. */
export function dropUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/** A number as the document client reads it (wrapped, so that int64 plant ids keep their digits). */
export function numberOf(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  const text = (value as { value?: unknown } | undefined)?.value;
  return typeof text === 'string' && text !== '' ? Number(text) : undefined;
}
