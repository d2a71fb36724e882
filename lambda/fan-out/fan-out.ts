/**
 * The fan-out: each plant a create stored (an INSERT record of the plants table's stream) becomes
 * one queued delivery per subscriber registered now. Records are taken in stream order. A record
 * that can never succeed (not a stored plant: our bug, a malformed image) is sent whole to the
 * stream failure queue and passed, so it never blocks its shard; the first that fails otherwise
 * (the subscriptions table or the queue unreachable) is reported, and Lambda retries from it
 * until the mapping's maximum record age (the ones before it are done).
 */
import type { DynamoDBRecord } from 'aws-lambda';
import type { DeliveryQueue } from '../webhook/delivery-queue';
import { deliveriesOf } from '../webhook/deliveries';
import type { DeliveryMessage } from '../webhook/message';
import type { Subscriber } from '../webhook/subscriptions-table';

/** What the fan-out needs. */
export interface FanOutDeps {
  readonly subscribers: () => Promise<Subscriber[]>;
  readonly queue: Pick<DeliveryQueue, 'send'>;
  /** The stream failure queue: records that can never become deliveries, whole. */
  readonly failures: { put(document: PoisonRecord): Promise<void> };
}

/** What the stream failure queue receives of a record the fan-out can never deliver. */
export interface PoisonRecord {
  readonly reason: string;
  readonly record: DynamoDBRecord;
}

/** What became of a batch: deliveries queued, records set aside, the record to resume from. */
export interface FanOutResult {
  readonly queued: number;
  readonly setAside: readonly PoisonRecord[];
  readonly failedAt?: { readonly sequenceNumber: string; readonly error: unknown };
}

/** The deliveries of one stream record, or why it can never have any. */
export function recordDeliveries(
  record: DynamoDBRecord,
  subscribers: readonly Subscriber[],
): DeliveryMessage[] | { readonly poison: string } {
  if (record.eventName !== 'INSERT') return [];
  const image = record.dynamodb?.NewImage;
  if (!image) return { poison: 'an INSERT record without NewImage' };
  try {
    return deliveriesOf(image, subscribers, { fallbackKey: record.eventID });
  } catch (error) {
    return { poison: String((error as Error)?.message ?? error) };
  }
}

/** Queues the deliveries of `records`, in order, stopping at the first failure of ours. */
export async function fanOut(
  records: readonly DynamoDBRecord[],
  deps: FanOutDeps,
): Promise<FanOutResult> {
  let queued = 0;
  const setAside: PoisonRecord[] = [];
  let subscribers: Subscriber[] | undefined;
  for (const record of records) {
    try {
      subscribers ??= await deps.subscribers();
      const deliveries = recordDeliveries(record, subscribers);
      if ('poison' in deliveries) {
        const poison = { reason: deliveries.poison, record };
        await deps.failures.put(poison);
        setAside.push(poison);
        continue;
      }
      await deps.queue.send(deliveries);
      queued += deliveries.length;
    } catch (error) {
      const sequenceNumber = record.dynamodb?.SequenceNumber ?? '';
      return { queued, setAside, failedAt: { sequenceNumber, error } };
    }
  }
  return { queued, setAside };
}
