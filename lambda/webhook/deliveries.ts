/**
 * The deliveries one stored plant is owed, defined once for the fan-out (from a stream record's
 * image) and `webhook replay` (from the table's item): one per subscriber, each with the `webhook-id` derived from the subscriber, the plant's id and
 * its `createdAt`, so both queue the very same messages.
 */
import { createdAtOf, newPlantBody, type DeliveryMessage } from './message';
import { webhookIdOf } from './signature';
import type { Subscriber } from './subscriptions-table';

/** A stored plant's attributes in DynamoDB JSON (a stream image, or a raw Scan item). */
export type PlantImage = Record<string, unknown>;

/** How the subscribers owed a plant are chosen, and its ids derived. */
export interface DeliveriesOptions {
  /**
   * Only subscribers added by the time the plant was stored (`replay`, which runs later). The
   * fan-out runs as the plant is stored and takes every current subscriber: comparing with the
   * time a CLI on another clock wrote would skip plants near an `add`.
   * @default false
   */
  readonly onlyRegisteredBy?: boolean;
  /** What the ids derive from when the item has no `createdAt`. @default - none: it throws */
  readonly fallbackKey?: string;
}

/**
 * The deliveries of the plant in `image` to `subscribers`. Throws when the image is not a
 * stored plant: such a record can never succeed.
 */
export function deliveriesOf(
  image: PlantImage,
  subscribers: readonly Subscriber[],
  options: DeliveriesOptions = {},
): DeliveryMessage[] {
  const { plantId, body } = newPlantBody(image);
  const createdAt = createdAtOf(image);
  const key = createdAt ?? options.fallbackKey;
  if (key === undefined) throw new Error(`the stored plant ${plantId} has no createdAt`);
  const owed = (s: Subscriber) =>
    !options.onlyRegisteredBy ||
    createdAt === undefined ||
    !s.createdAt ||
    s.createdAt <= createdAt;
  return subscribers.filter(owed).map((subscriber) => ({
    webhookId: webhookIdOf(subscriber.subscriberId, plantId, key),
    subscriberId: subscriber.subscriberId,
    plantId,
    body,
    ...(createdAt === undefined ? {} : { storedAt: createdAt }),
  }));
}
