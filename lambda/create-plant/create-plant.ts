/** Creating a plant: one conditional put, and a comparison on conflict. */
import { Conflict } from '../http/answers';
import type { PlantsStore } from '../plants/table';
import { differingMembers, PLANT_FIELDS_IN_WORDS, type NewPlant } from '../plants/schemas';

/** `created`: written now. `unchanged`: the same plant was already stored (a safe retry). */
export type CreateOutcome = 'created' | 'unchanged';

/**
 * Stores `plant` unless its id is taken. A taken id whose plant has the same members (every
 * one of the schema's, absent or not) is a retry and answers `unchanged` without writing;
 * another plant under the id is a `Conflict`.
 */
export async function createPlant(
  plants: Pick<PlantsStore, 'putNew'>,
  plant: NewPlant,
  createdBy: string,
  now: Date = new Date(),
): Promise<CreateOutcome> {
  const stored = await plants.putNew(plant, { createdAt: now.toISOString(), createdBy });
  if (!stored) return 'created';
  if (differingMembers(stored, plant).length === 0) return 'unchanged';
  throw new Conflict(takenMessage(plant.id));
}

/** The 409's message: the id, and the members that may differ (the schema's, in words). */
export function takenMessage(id: bigint): string {
  return `id: ${id} is already taken by a plant with another ${PLANT_FIELDS_IN_WORDS}`;
}
