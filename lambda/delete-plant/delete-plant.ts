/** Deleting one plant: its item becomes a tombstone (see `PlantsTable.delete`). */
import { written } from '../plants/conditional';
import type { Preconditions } from '../plants/write-condition';
import type { PlantsStore, Versioned } from '../plants/table';

/**
 * Deletes the plant stored under `id` when there is one and it meets the preconditions; answers
 * it (with the deletion's version), or throws `NotFound` or `PreconditionFailed`.
 */
export async function deletePlant(
  plants: Pick<PlantsStore, 'delete'>,
  id: bigint,
  options: Preconditions & { readonly now?: Date } = {},
): Promise<Versioned> {
  const { now = new Date(), ...preconditions } = options;
  return written(id, await plants.delete(id, { ...preconditions, at: now.toISOString() }));
}
