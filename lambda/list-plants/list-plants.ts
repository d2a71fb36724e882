/** Listing plants a page at a time: one Scan per page, resumed from the cursor. */
import { encodeCursor } from '../plants/cursor';
import type { PlantsStore } from '../plants/table';
import type { PageQuery, PlantPage } from '../plants/schemas';

/**
 * At most `limit` plants after the cursor's key, and the cursor of the next page while more
 * may follow. A page may be short or empty and still have a `next`.
 */
export async function listPlants(
  plants: Pick<PlantsStore, 'scan'>,
  query: PageQuery,
): Promise<PlantPage> {
  const page = await plants.scan(query.limit, query.cursor);
  return page.last === undefined
    ? { plants: page.plants }
    : { plants: page.plants, next: encodeCursor(page.last) };
}
