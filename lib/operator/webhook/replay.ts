/**
 * Recovery without the stream: queues again what the plants table holds of the writes in a time
 * range, to every subscriber registered when each was stored (or to one) that chose its event,
 * with the `webhook-id` the first delivery had (`deliveries.ts` derives both from the same item),
 * so receivers deduplicate. The table keeps only each plant's current state, so a replay sends
 * that: the newPlant of a plant created in the range (its members as they are now), the
 * plantUpdated of its current version when that change was made in the range (the versions
 * between are gone: the latest carries the whole plant), and the plantDeleted of a deletion made
 * in the range, from its tombstone (kept `TOMBSTONE_DAYS`). `npm run webhook -- replay` runs it
 * after a stream-failure alarm or a receiver's data loss; re-enabling a subscriber runs it over
 * the time it was disabled.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { DeliveryQueue } from '../../../lambda/webhook/delivery-queue';
import { decodeImageState } from '../../../lambda/plants/decode';
import { TOMBSTONE_DAYS } from '../../../lambda/plants/item';
import { deliveriesOf, type PlantImage } from '../../../lambda/webhook/deliveries';
import { eventsOfItem, type PlantWrite } from '../../../lambda/webhook/events';
import type { Subscriber } from '../../../lambda/webhook/subscriptions-table';
import { bodyBytes, fitsAsDelivery, queueBody } from '../../../lambda/webhook/queue-body';

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
  /**
   * Plants written in the range before any subscriber that chose the write's event was added:
   * nothing queued (plants whose writes no subscriber chose are counted nowhere).
   */
  readonly beforeSubscribers: number;
  /**
   * When the range starts before the oldest delete every tombstone still holds (`TOMBSTONE_DAYS`
   * ago: a tombstone written before tombstones were kept for good expires) and a subscriber chose
   * plantDeleted: that time, before which some deletes may not be sent.
   */
  readonly deletesPurgedBefore?: string;
  /**
   * The plants (ids) with a delivery too large to queue (`fitsAsDelivery`: only plants stored
   * before the field limits), to some subscriber or all: not queued to them, as the fan-out
   * queued them none either.
   */
  readonly tooLarge: readonly string[];
}

/** The plant ids a note names, at most. */
const NAMED_AT_MOST = 10;

/** The lines a replay's caller prints besides its count: what it could not send, if anything. */
export function replayNotes(result: ReplayResult): string[] {
  const notes: string[] = [];
  if (result.deletesPurgedBefore !== undefined) {
    notes.push(
      `plantDeleted before ${result.deletesPurgedBefore} may be missing: a tombstone written before tombstones were kept for good is purged after ${TOMBSTONE_DAYS} days`,
    );
  }
  const { tooLarge } = result;
  if (tooLarge.length > 0) {
    const more =
      tooLarge.length > NAMED_AT_MOST ? ` and ${tooLarge.length - NAMED_AT_MOST} more` : '';
    notes.push(
      `not queued: a delivery of plant ${tooLarge.slice(0, NAMED_AT_MOST).join(', ')}${more}, too large to queue (stored before the field limits; a receiver can GET the plant)`,
    );
  }
  return notes;
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
  const chosen = new Set(subscribers.flatMap((s) => eventsOfItem(s.events)));
  const kept = new Date(Date.now() - TOMBSTONE_DAYS * 86_400_000).toISOString();
  const tooLarge: string[] = [];
  const result: { -readonly [K in keyof ReplayResult]: ReplayResult[K] } = {
    plants: 0,
    queued: 0,
    beforeSubscribers: 0,
    tooLarge,
    ...(since < kept && chosen.has('plantDeleted') ? { deletesPurgedBefore: kept } : {}),
  };
  for await (const page of deps.plants.storedImages({ since, until })) {
    const perPlant = page.map((item) => {
      const writes = replayedWrites(item, since, until);
      const deliveries = writes.flatMap((write) =>
        deliveriesOf(write, item as PlantImage, subscribers, { onlyRegisteredBy: true }),
      );
      return { deliveries, owed: writes.some((write) => chosen.has(write.event)) };
    });
    const fits = new Set(
      perPlant.flatMap((plant) =>
        plant.deliveries.filter((d) => fitsAsDelivery(bodyBytes(queueBody(d)))),
      ),
    );
    await deps.queue.send(perPlant.flatMap((plant) => plant.deliveries.filter((d) => fits.has(d))));
    result.queued += fits.size;
    for (const plant of perPlant) {
      const refused = plant.deliveries.find((d) => !fits.has(d));
      if (refused) tooLarge.push(refused.plantId);
      if (plant.deliveries.some((d) => fits.has(d))) result.plants += 1;
      else if (plant.deliveries.length === 0 && plant.owed) result.beforeSubscribers += 1;
    }
  }
  return result;
}

/**
 * The writes a stored plant still shows in `[since, until)`: its create, and its current version's
 * change. A never-changed plant (at the version it was created at) shows only its create; a tombstone only its deletion
 * (its tag is gone, and the deletion is the last word on its incarnation).
 */
export function replayedWrites(
  item: PlantImage,
  since: string,
  until: string | undefined,
): PlantWrite[] {
  const { createdAt, updatedAt, deletedAt, version, firstVersion } = decodeImageState(item);
  const inRange = (at: string | undefined) =>
    at !== undefined && at >= since && (until === undefined || at < until);
  if (deletedAt !== undefined) {
    return inRange(deletedAt)
      ? [{ event: 'plantDeleted', createdAt, version, storedAt: deletedAt }]
      : [];
  }
  const writes: PlantWrite[] = [];
  if (inRange(createdAt)) {
    writes.push({ event: 'newPlant', createdAt, version: firstVersion, storedAt: createdAt });
  }
  if (version > firstVersion && inRange(updatedAt)) {
    writes.push({ event: 'plantUpdated', createdAt, version, storedAt: updatedAt });
  }
  return writes;
}
