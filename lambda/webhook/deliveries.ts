/**
 * The deliveries one write of a plant is owed, defined once for the fan-out (from a stream
 * record's image) and `webhook replay` (from the table's item): one per subscriber that chose
 * the write's event, each with a `webhook-id` derived from the subscriber, the plant's id, its
 * `createdAt` and (for a change or a delete) its version, so both queue the very same messages.
 */
import { eventsOfItem, receivesTypedBodies, type PlantWrite } from './events';
import { newPlantBody, typedBody, type DeliveryMessage } from './message';
import { webhookIdOf } from './signature';
import type { Subscriber } from './subscriptions-table';

/** A stored plant's attributes in DynamoDB JSON (a stream image, or a raw Scan item). */
export type PlantImage = Record<string, unknown>;

/** How the subscribers owed a write are chosen, and its ids derived. */
export interface DeliveriesOptions {
  /**
   * Only subscribers added by the time the write was stored (`replay`, which runs later). The
   * fan-out runs as the write is stored and takes every current subscriber: comparing with the
   * time a CLI on another clock wrote would skip writes near an `add`.
   * @default false
   */
  readonly onlyRegisteredBy?: boolean;
  /** What the ids derive from when the item has no `createdAt`. @default - none: it throws */
  readonly fallbackKey?: string;
}

/**
 * The deliveries of `write`, whose item is `image`, to the `subscribers` that chose its event.
 * A subscriber of newPlant alone gets newPlant's body as it always was; one that chose more gets
 * the typed body. Throws when the image is not a stored plant: such a record can never succeed.
 */
export function deliveriesOf(
  write: PlantWrite,
  image: PlantImage,
  subscribers: readonly Subscriber[],
  options: DeliveriesOptions = {},
): DeliveryMessage[] {
  const chosen = subscribers.filter((s) => eventsOfItem(s.events).includes(write.event));
  // Each body is made once, and only when a subscriber receives it (and checks the image).
  let plain: ReturnType<typeof newPlantBody> | undefined;
  let typed: ReturnType<typeof typedBody> | undefined;
  const bodyFor = (subscriber: Subscriber) =>
    receivesTypedBodies(eventsOfItem(subscriber.events))
      ? (typed ??= typedBody(write, image))
      : (plain ??= newPlantBody(image));
  const key = write.createdAt ?? options.fallbackKey;
  const { storedAt } = write;
  const owed = (s: Subscriber) =>
    !options.onlyRegisteredBy || storedAt === undefined || !s.createdAt || s.createdAt <= storedAt;
  return chosen.filter(owed).map((subscriber) => {
    const { plantId, body } = bodyFor(subscriber);
    if (key === undefined) throw new Error(`the stored plant ${plantId} has no createdAt`);
    // A newPlant keeps the id it always had; a change's or a delete's names its version too.
    const idKey = write.event === 'newPlant' ? key : `${key}#${write.version}`;
    return {
      webhookId: webhookIdOf(subscriber.subscriberId, plantId, idKey),
      subscriberId: subscriber.subscriberId,
      plantId,
      body,
      ...(storedAt === undefined ? {} : { storedAt }),
    };
  });
}
