/** Deleting one plant: one DeleteItem that returns the old item, so 204 and 404 need no read. */
import { NotFound } from '../http/answers';
import type { PlantsStore } from '../plants/table';
import type { StoredPlant } from '../plants/schemas';

/** Deletes the plant stored under `id` and answers it, or `NotFound` when there was none. */
export async function deletePlant(plants: PlantsStore, id: bigint): Promise<StoredPlant> {
  const plant = await plants.delete(id);
  if (!plant) throw new NotFound(`no plant with id ${id}`);
  return plant;
}
