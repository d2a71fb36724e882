/**
 * The fan-out: each write of a plant (an INSERT or MODIFY record of the plants table's stream: a
 * create, a change, a delete's mark) becomes one queued delivery per subscriber registered now
 * that chose its event (`events.ts` says which event a record is). The deliveries of the whole
 * batch go out together, ten to a SendMessageBatch across records, at most `FAN_OUT_IN_FLIGHT`
 * calls at once (`send-all.ts`): 100 records at one subscriber are 10 calls, at ten subscribers
 * 100. A record that can never succeed (not a stored plant, a delivery too large to queue, or one
 * the queue refuses as malformed: our bug) is sent to the stream failure queue (whole, or without
 * its images when they would not fit) and passed, so it never blocks its shard. A
 * delivery the queue refuses on its side, or a call that failed, is sent again within the
 * invocation until its deadline; then the first record not wholly queued is reported (the first
 * of all when the subscribers could not be read), and Lambda retries from it until the mapping's
 * maximum record age (the ones before it are done).
 */
import type { DynamoDBRecord } from 'aws-lambda';
import { SQS_CALL_MAX_MS, type DeliveryQueue } from '../webhook/delivery-queue';
import { deliveriesOf } from '../webhook/deliveries';
import { writeOf } from '../webhook/events';
import type { DeliveryMessage } from '../webhook/message';
import type { Subscriber } from '../webhook/subscriptions-table';
import { bodyBytes, queueBody, SQS_MESSAGE_LIMIT_BYTES } from '../webhook/queue-body';
import { sendAll, type EntryFate } from './send-all';
import type { Narrow } from '../aws/table-definition';
import { FAN_OUT_GRANTS } from './grants';

/**
 * SendMessageBatch calls in flight at once: with 10 ms a call, 32 keep 1,000 records a second
 * at ten subscribers (100 calls per 100 records: four rounds) within a quarter of the 50 ms
 * budget a shard's 1,000 writes a second leave per batch of 100 (`npm run bench -- --phases fan-out`).
 */
export const FAN_OUT_IN_FLIGHT = 32;

/**
 * How long before the invocation's timeout the fan-out starts no more calls (sending again what
 * failed, or setting a record aside): the longest one call of the SQS client takes (three
 * attempts of at most 2 s and the pauses between), and a second more.
 */
export const FAN_OUT_RESERVE_MS = SQS_CALL_MAX_MS + 1_000;

/** What the fan-out needs. */
export interface FanOutDeps {
  readonly subscribers: () => Promise<readonly Subscriber[]>;
  readonly queue: Narrow<DeliveryQueue, typeof FAN_OUT_GRANTS.queues.deliveries>;
  /** The stream failure queue: records that can never become deliveries, whole. */
  readonly failures: { put(document: PoisonRecord): Promise<void> };
}

/**
 * What the stream failure queue receives of a record the fan-out can never deliver: the record
 * whole, or, when that would not fit in a message, without its images (its keys and sequence
 * number say which write it was). A record is set aside whole: those of its deliveries that were
 * queued would come twice if it were ever sent again.
 */
export interface PoisonRecord {
  readonly reason: string;
  readonly record: DynamoDBRecord;
  readonly imagesOmitted?: true;
}

/** `record` set aside for `reason`, in a document SQS takes. */
export function poisonRecord(record: DynamoDBRecord, reason: string): PoisonRecord {
  const whole = { reason: reason.slice(0, 1_000), record };
  if (bodyBytes(queueBody(whole)) <= SQS_MESSAGE_LIMIT_BYTES) return whole;
  const dynamodb = { ...record.dynamodb };
  delete dynamodb.NewImage;
  delete dynamodb.OldImage;
  return { ...whole, record: { ...record, dynamodb }, imagesOmitted: true };
}

/** What became of a batch: deliveries queued, records set aside, the record to resume from. */
export interface FanOutResult {
  readonly queued: number;
  readonly setAside: readonly PoisonRecord[];
  readonly failedAt?: { readonly sequenceNumber: string; readonly error: unknown };
}

/**
 * The deliveries of one stream record, or why it can never have any. The mapping passes INSERT and
 * MODIFY records only (`STREAM_FILTER_PATTERN`); a REMOVE, should one come, is owed nothing (the
 * delete's event is the MODIFY that marked the plant deleted).
 */
export function recordDeliveries(
  record: DynamoDBRecord,
  subscribers: readonly Subscriber[],
): DeliveryMessage[] | { readonly poison: string } {
  const kind = record.eventName;
  if (kind !== 'INSERT' && kind !== 'MODIFY') return [];
  const image = record.dynamodb?.NewImage;
  if (!image) return { poison: `the ${kind} record has no NewImage` };
  try {
    const write = writeOf(kind, image);
    return deliveriesOf(write, image, subscribers, { fallbackKey: record.eventID });
  } catch (error) {
    return { poison: String((error as Error)?.message ?? error) };
  }
}

/** When the fan-out of one batch stops trying (epoch ms), and its pace. */
export interface FanOutOptions {
  /** Past this, what failed is reported rather than sent again. */
  readonly until: number;
  /** @default FAN_OUT_IN_FLIGHT */
  readonly inFlight?: number;
  /** @default Date.now */
  readonly now?: () => number;
}

/**
 * Queues the deliveries of `records`; sets aside the records that can never have any; reports
 * the first record whose deliveries are not all queued by `until` (none: the batch is done).
 */
export async function fanOut(
  records: readonly DynamoDBRecord[],
  deps: FanOutDeps,
  options: FanOutOptions,
): Promise<FanOutResult> {
  const failedAt = (index: number, error: unknown): FanOutResult['failedAt'] => ({
    sequenceNumber: records[index]?.dynamodb?.SequenceNumber ?? '',
    error,
  });
  if (records.length === 0) return { queued: 0, setAside: [] };
  let subscribers: readonly Subscriber[];
  try {
    subscribers = await deps.subscribers();
  } catch (error) {
    return { queued: 0, setAside: [], failedAt: failedAt(0, error) };
  }
  // Every delivery of the batch, in record order, and the record each belongs to.
  const messages: DeliveryMessage[] = [];
  const owner: number[] = [];
  const poison = new Map<number, string>();
  records.forEach((record, index) => {
    const deliveries = recordDeliveries(record, subscribers);
    if ('poison' in deliveries) return void poison.set(index, deliveries.poison);
    for (const message of deliveries) {
      messages.push(message);
      owner.push(index);
    }
  });
  const fates = await sendAll(messages, deps.queue, {
    inFlight: options.inFlight ?? FAN_OUT_IN_FLIGHT,
    until: options.until,
    now: options.now,
  });
  // A record with a delivery refused as malformed can never be wholly queued: it is set aside.
  const blocked = new Map<number, unknown>();
  fates.forEach((fate: EntryFate, n) => {
    const index = owner[n]!;
    if (fate.fate === 'refused' && !poison.has(index)) {
      poison.set(
        index,
        `the queue refused a delivery to ${messages[n]!.subscriberId}: ${fate.reason}`,
      );
    }
    if (fate.fate === 'pending' && !blocked.has(index)) blocked.set(index, fate.error);
  });
  const setAside: PoisonRecord[] = [];
  const now = options.now ?? Date.now;
  for (const [index, reason] of [...poison].sort(([a], [b]) => a - b)) {
    // As no delivery is sent again past the deadline, no record is set aside past it: the
    // retry will.
    if (now() >= options.until) {
      if (!blocked.has(index)) blocked.set(index, new Error('not set aside: near the timeout'));
      continue;
    }
    const document = poisonRecord(records[index]!, reason);
    try {
      await deps.failures.put(document);
      setAside.push(document);
      blocked.delete(index);
    } catch (error) {
      if (!blocked.has(index)) blocked.set(index, error);
    }
  }
  const queued = fates.filter((fate) => fate.fate === 'queued').length;
  const first = Math.min(...blocked.keys());
  if (!Number.isFinite(first)) return { queued, setAside };
  return { queued, setAside, failedAt: failedAt(first, blocked.get(first)) };
}
