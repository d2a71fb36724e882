/**
 * Recovery without the stream: queues again the newPlant of every plant stored in a time range,
 * to every subscriber registered when it was stored (or to one), with the `webhook-id` the first
 * delivery had (`deliveries.ts` derives both from the same item), so receivers deduplicate.
 * `npm run webhook -- replay` runs it after a stream-failure alarm or a receiver's data loss;
 * re-enabling a subscriber runs it over the time it was disabled.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { DeliveryQueue } from '../../../lambda/webhook/delivery-queue';
import { deliveriesOf, type PlantImage } from '../../../lambda/webhook/deliveries';
import type { Subscriber } from '../../../lambda/webhook/subscriptions-table';

/** Which plants, to whom. */
export interface ReplayRange {
  /** Plants stored at or after this time. */
  readonly since: Date;
  /** And before this time. @default - now and later: every plant stored since */
  readonly until?: Date;
  /** Only this subscriber's deliveries. @default - every subscriber's */
  readonly subscriberId?: string;
}

/** What a replay reads and where it queues. */
export interface ReplayDeps {
  readonly plants: {
    storedImages(range: {
      since: string;
      until?: string;
    }): AsyncIterable<Record<string, AttributeValue>[]>;
  };
  readonly subscribers: () => Promise<Subscriber[]>;
  readonly queue: Pick<DeliveryQueue, 'send'>;
}

/** What a replay did. */
export interface ReplayResult {
  /** Plants stored in the range and queued to at least one subscriber. */
  readonly plants: number;
  /** Deliveries queued. */
  readonly queued: number;
  /** Plants stored in the range before any of the subscribers was added: nothing queued. */
  readonly beforeSubscribers: number;
}

/** Queues the deliveries of every plant stored in `range`; throws on an unknown subscriber. */
export async function replay(range: ReplayRange, deps: ReplayDeps): Promise<ReplayResult> {
  const since = range.since.toISOString();
  const until = range.until?.toISOString();
  if (until !== undefined && until <= since) {
    throw new Error(`until (${until}) must be after since (${since})`);
  }
  let subscribers = await deps.subscribers();
  if (range.subscriberId !== undefined) {
    subscribers = subscribers.filter((s) => s.subscriberId === range.subscriberId);
    if (subscribers.length === 0) throw new Error(`no subscriber with id ${range.subscriberId}`);
  }
  const result = { plants: 0, queued: 0, beforeSubscribers: 0 };
  for await (const page of deps.plants.storedImages({ since, until })) {
    const perPlant = page.map((item) =>
      deliveriesOf(item as PlantImage, subscribers, { onlyRegisteredBy: true }),
    );
    const deliveries = perPlant.flat();
    await deps.queue.send(deliveries);
    result.queued += deliveries.length;
    for (const owed of perPlant) {
      if (owed.length > 0) result.plants += 1;
      else result.beforeSubscribers += 1;
    }
  }
  return result;
}
