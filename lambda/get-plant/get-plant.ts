/** Reading one plant: one GetItem. */
import { NotFound } from '../http/answers';
import type { PlantsStore, Versioned } from '../plants/table';

/** The plant stored under `id` and its version, or `NotFound`. */
export async function getPlant(plants: Pick<PlantsStore, 'get'>, id: bigint): Promise<Versioned> {
  const plant = await plants.get(id);
  if (!plant) throw new NotFound(`no plant with id ${id}`);
  return plant;
}
