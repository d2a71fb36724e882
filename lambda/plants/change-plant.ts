/** Changing a plant (PUT and PATCH): one conditional UpdateItem, which never creates one. */
import { BadRequest } from '../http/answers';
import type { Changed, PlantsStore } from './table';
import { written } from './conditional';
import type { PlantChange } from './item';
import type { Preconditions } from './write-condition';

/**
 * Applies `change` to the plant under `id`, when there is one and it meets the preconditions;
 * answers the plant after the change (its version one more), or as it is (`unchanged`, no write)
 * when the change would change nothing; or throws `NotFound` or `PreconditionFailed`. Atomic:
 * concurrent changes each apply whole, one after another.
 */
export async function changePlant(
  plants: Pick<PlantsStore, 'update'>,
  id: bigint,
  change: PlantChange,
  options: Preconditions & { readonly by: string; readonly now?: Date },
): Promise<Changed> {
  const { by, now = new Date(), ...preconditions } = options;
  return written(
    id,
    await plants.update(id, change, { ...preconditions, audit: { at: now.toISOString(), by } }),
  );
}

/** A body's `id`, when it has one, must be the path's: a plant's id never changes. */
export function requireSameId(body: { readonly id?: bigint }, id: bigint): void {
  if (body.id !== undefined && body.id !== id) {
    throw new BadRequest(`id: must equal the id in the path, ${id} (a plant's id cannot change)`);
  }
}
