/**
 * The typed bodies a subscriber that chose more than newPlant receives, as valibot schemas: the
 * one definition of their members and order, which `typedBody` writes and the OpenAPI document
 * describes. Each carries `type` and the pair a receiver orders one id's events by: `createdAt`
 * (which incarnation of the id: a plant deleted and created again has a later one) and `version`
 * (within it; a deletion's is the last of its incarnation).
 */
import * as v from 'valibot';
import { StoredPlant } from '../plants/schemas';
import type { PlantEvent } from './events';

const { id, ...members } = StoredPlant.pipe[0].entries;

const ORDERING = {
  createdAt: v.pipe(
    v.string(),
    v.isoTimestamp(),
    v.description(
      'When this id was created (ISO-8601 UTC, fixed width: it compares as text). A plant deleted and created again has a later one: it names the incarnation the event belongs to.',
    ),
    v.examples(['2026-11-25T08:00:00.000Z']),
  ),
  version: v.pipe(
    v.number(),
    v.integer(),
    v.minValue(1),
    v.description(
      "The plant's version after this event: 1 when created (an id created again continues from its deletion's), one more with each change; a deletion's is the last of its incarnation. The ETag of the plant at that version.",
    ),
  ),
};

/** A create, as a subscriber of more than newPlant receives it. */
export const NewPlantEvent = v.pipe(
  v.object({ type: v.literal('newPlant'), id, ...members, ...ORDERING }),
  v.description(
    'The newPlant body of a subscriber that chose more events than newPlant: the plant as created, its `type`, its `createdAt` and the version it was created at (1, or one more than its deletion for an id created again). A subscriber of newPlant alone receives NewPlant, as always.',
  ),
);

/** A change (PUT or PATCH): the plant after it. */
export const PlantUpdatedEvent = v.pipe(
  v.object({ type: v.literal('plantUpdated'), id, ...members, ...ORDERING }),
  v.description('A change (PUT or PATCH): the whole plant after it, with its new version.'),
);

/** A delete: the id, and which incarnation at which version was deleted. */
export const PlantDeletedEvent = v.pipe(
  v.object({ type: v.literal('plantDeleted'), id, ...ORDERING }),
  v.description(
    'A delete: the id, the `createdAt` of the plant deleted and its last version (one more than the version it had).',
  ),
);

/** Each typed body by its event. */
export const EVENT_BODIES = {
  newPlant: NewPlantEvent,
  plantUpdated: PlantUpdatedEvent,
  plantDeleted: PlantDeletedEvent,
} as const satisfies Record<PlantEvent, v.GenericSchema>;

/**
 * The members of the typed body of `event`, in its schema's order, taken from `source` (the
 * plant's members, `type`, `createdAt`, `version`); a member `source` lacks is left out.
 */
export function typedMembers(
  event: PlantEvent,
  source: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(EVENT_BODIES[event].pipe[0].entries)) {
    if (source[key] !== undefined) out[key] = source[key];
  }
  return out;
}
