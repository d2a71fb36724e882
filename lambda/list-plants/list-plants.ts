/**
 * Listing plants a page at a time, resumed from the cursor: one Scan of the table per page, or
 * with a tag one Query of its index (that tag's plants in id order).
 */
import { encodeCursor } from '../plants/cursor';
import type { PlantsStore } from '../plants/table';
import type { PageQuery, PlantPage } from '../plants/schemas';

/**
 * At most `limit` plants after the cursor's key, and the cursor of the next page while more
 * may follow. A page may be short or empty and still have a `next`.
 */
export async function listPlants(
  plants: Pick<PlantsStore, 'scan' | 'queryByTag'>,
  query: PageQuery,
): Promise<PlantPage> {
  const { limit, tag, cursor } = query;
  const page =
    tag === undefined
      ? await plants.scan(limit, cursor)
      : await plants.queryByTag(tag, limit, cursor);
  return page.last === undefined
    ? { plants: page.plants }
    : { plants: page.plants, next: encodeCursor(page.last, tag) };
}
