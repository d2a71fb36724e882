/**
 * The deliveries one stored plant is owed, defined once for the fan-out (from a stream record's
 * image) and `webhook replay` (from the table's item): one per subscriber registered when the
 * plant was stored, each with the `webhook-id` derived from the subscriber, the plant's id and
 * its `createdAt`, so both queue the very same messages.
 */
import { createdAtOf, newPlantBody, type DeliveryMessage } from './message';
import { webhookIdOf } from './signature';
import type { Subscriber } from './subscriptions-table';

/** A stored plant's attributes in DynamoDB JSON (a stream image, or a raw Scan item). */
export type PlantImage = Record<string, unknown>;

/**
 * The deliveries of the plant in `image` to those of `subscribers` registered by then (an item
 * with no `createdAt` is owed to all, ids derived from `fallbackKey`). Throws when the image is
 * not a stored plant: such a record can never succeed.
 */
export function deliveriesOf(
  image: PlantImage,
  subscribers: readonly Subscriber[],
  fallbackKey?: string,
): DeliveryMessage[] {
  const { plantId, body } = newPlantBody(image);
  const createdAt = createdAtOf(image);
  const key = createdAt ?? fallbackKey;
  if (key === undefined) throw new Error(`the stored plant ${plantId} has no createdAt`);
  return subscribers
    .filter((s) => createdAt === undefined || !s.createdAt || s.createdAt <= createdAt)
    .map((subscriber) => ({
      webhookId: webhookIdOf(subscriber.subscriberId, plantId, key),
      subscriberId: subscriber.subscriberId,
      plantId,
      body,
    }));
}
