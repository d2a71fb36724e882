/**
 * The events a subscriber may choose, and which one a write of the plants table is. Defined once
 * for the CLI (`--events`), the subscriptions table (the `events` attribute), the fan-out (a
 * stream record's kind and image) and `webhook replay` (a table item).
 */
import { decodeImageState } from '../plants/decode';

/** Every event, in the order `list` and `--help` name them. */
export const PLANT_EVENTS = ['newPlant', 'plantUpdated', 'plantDeleted'] as const;
export type PlantEvent = (typeof PLANT_EVENTS)[number];

/** What a subscriber receives when it chose nothing (every subscriber before events existed). */
export const DEFAULT_EVENTS: readonly PlantEvent[] = ['newPlant'];

/** Whether `name` is one of `PLANT_EVENTS`. */
export function isPlantEvent(name: unknown): name is PlantEvent {
  return (PLANT_EVENTS as readonly unknown[]).includes(name);
}

/**
 * `--events`: a comma-separated list of event names, each known, at least one. Answers the
 * events in `PLANT_EVENTS` order, once each, or the one line that says what is wrong.
 */
export function parseEvents(text: string): PlantEvent[] | { readonly error: string } {
  const names = text.split(',').map((name) => name.trim());
  const unknown = names.filter((name) => !isPlantEvent(name));
  if (unknown.length > 0) {
    const shown = unknown.map((name) => (name === '' ? '(empty)' : name)).join(', ');
    return { error: `--events: unknown event ${shown}; choose from ${PLANT_EVENTS.join(', ')}` };
  }
  return PLANT_EVENTS.filter((event) => names.includes(event));
}

/**
 * A subscription item's `events` attribute as events: absent (or naming none we know, as an item
 * written by a later version might) is `DEFAULT_EVENTS`; names we do not know are passed over.
 */
export function eventsOfItem(attribute: unknown): readonly PlantEvent[] {
  const known = Array.isArray(attribute) ? PLANT_EVENTS.filter((e) => attribute.includes(e)) : [];
  return known.length > 0 ? known : DEFAULT_EVENTS;
}

/**
 * Whether a subscriber with `events` receives typed bodies (`type`, `createdAt`, `version`): every
 * subscriber that chose anything but newPlant alone. One that did not receives newPlant's body
 * exactly as before events existed.
 */
export function receivesTypedBodies(events: readonly PlantEvent[]): boolean {
  return !(events.length === 1 && events[0] === 'newPlant');
}

/** What one write of a plant is, as the fan-out and replay see it. */
export interface PlantWrite {
  readonly event: PlantEvent;
  /** The incarnation: when this plant (id) was created; a re-created id has a later one. */
  readonly createdAt?: string;
  /** Its version after the write; a deletion's is the last of its incarnation. */
  readonly version: number;
  /** When the write was stored: `createdAt`, `updatedAt` or `deletedAt`. */
  readonly storedAt?: string;
}

/**
 * The event a write of the plants table is, from the stream record's kind and its new image (the
 * stream is NEW_IMAGE: no old image to compare). An INSERT is a create; so is a MODIFY whose
 * image is at the version its plant was created at and has no deletion mark (a create over a
 * deleted plant's tombstone, which continues the tombstone's versions);
 * a MODIFY with a mark is a delete (the REMOVE of TTL purging the tombstone later carries only
 * the key, and is no event); any other MODIFY is a change. Throws when the image is not a stored plant.
 */
export function writeOf(kind: 'INSERT' | 'MODIFY', image: Record<string, unknown>): PlantWrite {
  const state = decodeImageState(image);
  const { createdAt, version, firstVersion } = state;
  const event: PlantEvent =
    state.deletedAt !== undefined
      ? 'plantDeleted'
      : kind === 'INSERT' || version === firstVersion
        ? 'newPlant'
        : 'plantUpdated';
  const storedAt =
    event === 'plantDeleted'
      ? state.deletedAt
      : event === 'plantUpdated'
        ? (state.updatedAt ?? createdAt)
        : createdAt;
  return {
    event,
    version,
    ...(createdAt === undefined ? {} : { createdAt }),
    ...(storedAt === undefined ? {} : { storedAt }),
  };
}
