/**
 * DynamoDB refuses a write that would give an index key an empty string (ValidationException:
 * "A value specified for a secondary index key is not supported. The AttributeValue for a key
 * attribute cannot contain an empty string value"); dynalite indexes it. The engine refuses it
 * too, as AWS does, so that code that would fail in AWS fails here: every item write of dynalite
 * passes through its `updateIndexes` with the item to be stored, before storing it, and the hook
 * there (`item-changes.ts`) refuses it.
 */
import type { Item, Table } from 'dynalite/db';

/** DynamoDB's words for the refusal, naming the index and its key. */
export function emptyIndexKeyMessage(index: string, key: string): string {
  return `One or more parameter values are not valid. A value specified for a secondary index key is not supported. The AttributeValue for a key attribute cannot contain an empty string value. IndexName: ${index}, IndexKey: ${key}`;
}

/** The index and key attribute of `table` that `item` would give an empty string, if any. */
export function emptyIndexKey(
  table: Table,
  item: Item | null | undefined,
): { index: string; key: string } | undefined {
  if (!item) return undefined;
  for (const index of [
    ...(table.GlobalSecondaryIndexes ?? []),
    ...(table.LocalSecondaryIndexes ?? []),
  ]) {
    for (const { AttributeName } of index.KeySchema) {
      const value = item[AttributeName] as { S?: unknown; B?: unknown } | undefined;
      if (value?.S === '' || value?.B === '') return { index: index.IndexName, key: AttributeName };
    }
  }
  return undefined;
}
