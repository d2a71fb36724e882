/** Deleting one plant: its item becomes a tombstone (see `remove` in `plants/store/change.ts`). */
import { written } from '../plants/conditional';
import type { Preconditions } from '../plants/write-condition';
import type { Deleted, PlantsStore } from '../plants/table';

/**
 * Deletes the plant stored under `id` when there is one and it meets the preconditions; answers
 * the deletion's version, or throws `NotFound` or `PreconditionFailed`.
 */
export async function deletePlant(
  plants: Pick<PlantsStore, 'delete'>,
  id: bigint,
  options: Preconditions & { readonly now?: Date } = {},
): Promise<Deleted> {
  const { now = new Date(), ...preconditions } = options;
  return written(id, await plants.delete(id, { ...preconditions, at: now.toISOString() }));
}
