/**
 * The fan-out: each plant a create stored (an INSERT record of the plants table's stream) becomes
 * one queued delivery per subscriber registered now. Records are taken in stream order; the
 * first that fails is reported, and Lambda retries from it (the ones before it are done).
 */
import type { DynamoDBRecord } from 'aws-lambda';
import type { DeliveryQueue } from '../shared/webhook/delivery-queue';
import type { Subscriber } from '../shared/webhook/subscriptions-table';
import { newPlantBody, type DeliveryMessage } from '../shared/webhook/message';
import { webhookIdOf } from '../shared/webhook/signature';

/** What the fan-out needs. */
export interface FanOutDeps {
  readonly subscribers: () => Promise<Subscriber[]>;
  readonly queue: DeliveryQueue;
}

/** What became of a batch: deliveries queued, and the record to resume from, if one failed. */
export interface FanOutResult {
  readonly queued: number;
  readonly failedAt?: { readonly sequenceNumber: string; readonly error: unknown };
}

/** The deliveries of one stream record: one per subscriber, none for anything but an INSERT. */
export function deliveriesOf(
  record: DynamoDBRecord,
  subscribers: readonly Subscriber[],
): DeliveryMessage[] {
  if (record.eventName !== 'INSERT') return [];
  const image = record.dynamodb?.NewImage;
  if (!record.eventID || !image) throw new Error('an INSERT record without eventID or NewImage');
  const { plantId, body } = newPlantBody(image);
  return subscribers.map((subscriber) => ({
    webhookId: webhookIdOf(record.eventID!, subscriber.subscriberId),
    subscriberId: subscriber.subscriberId,
    plantId,
    body,
  }));
}

/** Queues the deliveries of `records`, in order, stopping at the first failure. */
export async function fanOut(
  records: readonly DynamoDBRecord[],
  deps: FanOutDeps,
): Promise<FanOutResult> {
  let queued = 0;
  let subscribers: Subscriber[] | undefined;
  for (const record of records) {
    try {
      subscribers ??= await deps.subscribers();
      const deliveries = deliveriesOf(record, subscribers);
      await deps.queue.send(deliveries);
      queued += deliveries.length;
    } catch (error) {
      return { queued, failedAt: { sequenceNumber: record.dynamodb?.SequenceNumber ?? '', error } };
    }
  }
  return { queued };
}
