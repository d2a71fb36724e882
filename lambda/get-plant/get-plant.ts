/** Reading one plant: one GetItem. */
import { NotFound } from '../http/answers';
import type { PlantsStore } from '../plants/table';
import type { StoredPlant } from '../plants/schemas';

/** The plant stored under `id`, or `NotFound`. */
export async function getPlant(plants: PlantsStore, id: bigint): Promise<StoredPlant> {
  const plant = await plants.get(id);
  if (!plant) throw new NotFound(`no plant with id ${id}`);
  return plant;
}
