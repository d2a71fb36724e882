/**
 * The DynamoDB tables, defined once: the stack creates them, the local runtime and the tests
 * create them on the embedded engine, and the modules that own them read their key names here.
 * The tokens table is defined in `lambda/tokens/table.ts`, beside the only code that talks to it.
 */
import type { IndexDefinition, TableDefinition } from './table-definition';
import { TOKENS_TABLE } from '../tokens/table';

export type { IndexDefinition, TableDefinition };

/**
 * The plants of one tag in id order (GET /plants?tag=T): partition key the plant's `tag`, sort
 * key its `id`. An item without a tag is not in it (a sparse index).
 */
export const PLANTS_BY_TAG_INDEX = {
  name: 'byTag',
  partitionKey: { name: 'tag', type: 'S' },
  sortKey: { name: 'id', type: 'N' },
} as const satisfies IndexDefinition;

/**
 * Plants, keyed by their int64 id (a DynamoDB number keeps all 19 digits). A deleted plant stays
 * as a tombstone for good, so that its version is never forgotten and a replay can still send
 * its plantDeleted (lambda/plants/item.ts); TTL on `purgeAt` removes only the tombstones of
 * builds that set it.
 */
export const PLANTS_TABLE = {
  localName: 'plants',
  environmentVariable: 'PLANTS_TABLE_NAME',
  partitionKey: { name: 'id', type: 'N' },
  timeToLiveAttribute: 'purgeAt',
  streamViewType: 'NEW_IMAGE',
  indexes: [PLANTS_BY_TAG_INDEX],
} as const satisfies TableDefinition;

/** Bearer tokens: defined beside the only module that talks to them. */
export { TOKENS_TABLE };

/** Webhook subscribers, keyed by their public id; each item holds the URL and the sealed secret. */
export const SUBSCRIPTIONS_TABLE = {
  localName: 'subscriptions',
  environmentVariable: 'SUBSCRIPTIONS_TABLE_NAME',
  partitionKey: { name: 'subscriberId', type: 'S' },
} as const satisfies TableDefinition;

/** Every table, for code that creates them all. */
export const TABLES: readonly TableDefinition[] = [PLANTS_TABLE, TOKENS_TABLE, SUBSCRIPTIONS_TABLE];
