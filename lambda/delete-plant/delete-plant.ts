/** Deleting one plant: its item becomes a tombstone (see `PlantsTable.delete`). */
import { written } from '../plants/conditional';
import type { Validators } from '../plants/versions';
import type { PlantsStore, Versioned } from '../plants/table';

/**
 * Deletes the plant stored under `id` when there is one and, with `ifMatch`, at a version it
 * names; answers it (with the deletion's version), or throws `NotFound` or `PreconditionFailed`.
 */
export async function deletePlant(
  plants: Pick<PlantsStore, 'delete'>,
  id: bigint,
  options: { readonly ifMatch?: Validators; readonly now?: Date } = {},
): Promise<Versioned> {
  const { ifMatch, now = new Date() } = options;
  return written(id, await plants.delete(id, { ifMatch, at: now.toISOString() }));
}
