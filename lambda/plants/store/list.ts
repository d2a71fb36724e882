/** The plants table's `scan` and `queryByTag`: a page of plants, in id order. */
import { QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { PLANTS_BY_TAG_INDEX } from '../../aws/tables';
import { decodeId, decodePlant, isDeleted } from '../decode';
import type { PlantsTableDeps, ScanPage } from '../table';
import { call, KEY } from './calls';

/**
 * At most `limit` plants after the key `after` (one strongly consistent Scan). DynamoDB may
 * answer fewer, even none, and still a `last` key: the walk ends only when `last` is absent.
 */
export async function scan(
  table: PlantsTableDeps,
  limit: number,
  after?: bigint,
): Promise<ScanPage> {
  const { Items = [], LastEvaluatedKey } = await call(() =>
    table.plants.send(
      new ScanCommand({
        TableName: table.tableName,
        Limit: limit,
        ConsistentRead: true,
        ...(after === undefined ? {} : { ExclusiveStartKey: { [KEY]: after } }),
      }),
    ),
  );
  return pageOf(Items, LastEvaluatedKey);
}

/**
 * At most `limit` plants with the tag `tag` after the id `after`, in id order (one Query of the
 * index; an index is eventually consistent, so a change shows there a moment after it is made).
 * While the index is still being built (after an upgrade added it) DynamoDB refuses the read:
 * 503, never a partial list.
 */
export async function queryByTag(
  table: PlantsTableDeps,
  tag: string,
  limit: number,
  after?: bigint,
): Promise<ScanPage> {
  const { partitionKey, sortKey } = PLANTS_BY_TAG_INDEX;
  const { Items = [], LastEvaluatedKey } = await call(() =>
    table.plants.send(
      new QueryCommand({
        TableName: table.tableName,
        IndexName: PLANTS_BY_TAG_INDEX.name,
        KeyConditionExpression: '#tag = :tag',
        ExpressionAttributeNames: { '#tag': partitionKey.name },
        ExpressionAttributeValues: { ':tag': tag },
        Limit: limit,
        ...(after === undefined
          ? {}
          : { ExclusiveStartKey: { [partitionKey.name]: tag, [sortKey.name]: after } }),
      }),
    ),
  );
  return pageOf(Items, LastEvaluatedKey);
}

/** A page of a Scan or Query: the plants its items hold (not tombstones), and its last key. */
function pageOf(
  items: Record<string, unknown>[],
  lastKey: Record<string, unknown> | undefined,
): ScanPage {
  const plants = items.filter((item) => !isDeleted(item)).map(decodePlant);
  return lastKey ? { plants, last: decodeId(lastKey[KEY]) } : { plants };
}
