/** The plants table's `storedImages`: what `webhook replay` sends again (an operator's method). */
import { ScanCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { PLANT_ATTRIBUTES } from '../item';
import { call } from './calls';
import type { PlantsTableDeps } from '../table';

/**
 * Every plant created or last changed at or after `since` (and before `until`), and every
 * tombstone of a delete made then, a page at a time, as DynamoDB JSON (as a stream image has
 * it: `webhook replay` makes the same bodies the fan-out made). A filtered Scan reads the whole
 * table: the price of needing no index for a rare recovery.
 */
export async function* storedImages(
  table: PlantsTableDeps,
  range: { readonly since: string; readonly until?: string },
): AsyncGenerator<Record<string, AttributeValue>[]> {
  const within = (attribute: string) =>
    range.until === undefined
      ? `${attribute} >= :since`
      : `(${attribute} >= :since AND ${attribute} < :until)`;
  const { deletedAt, updatedAt } = PLANT_ATTRIBUTES;
  let after: Record<string, AttributeValue> | undefined;
  do {
    const { Items = [], LastEvaluatedKey } = await call(() =>
      table.plants.send(
        new ScanCommand({
          TableName: table.tableName,
          ConsistentRead: true,
          FilterExpression: `(attribute_not_exists(${deletedAt}) AND (${within('createdAt')} OR ${within(updatedAt)})) OR ${within(deletedAt)}`,
          ExpressionAttributeValues: {
            ':since': { S: range.since },
            ...(range.until === undefined ? {} : { ':until': { S: range.until } }),
          },
          ...(after ? { ExclusiveStartKey: after } : {}),
        }),
      ),
    );
    yield Items;
    after = LastEvaluatedKey;
  } while (after);
}
