/** The plants table's `get`: one strongly consistent GetItem. */
import { decodeVersioned, isDeleted, type Versioned } from '../decode';
import { item } from './calls';
import type { PlantsTableDeps } from '../table';

/**
 * The plant stored under `id` and its version, read strongly consistent (one GetItem), or
 * `undefined` when there is none (or it is being deleted).
 */
export async function get(table: PlantsTableDeps, id: bigint): Promise<Versioned | undefined> {
  const found = await item(table, id);
  return found && !isDeleted(found) ? decodeVersioned(found) : undefined;
}
