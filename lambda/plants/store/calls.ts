/**
 * What every method of the plants table shares (`lambda/plants/store/`, one module per method or
 * pair of methods, so that a function's bundle carries only the methods its grants name): the
 * table a method is given, its key, the strongly consistent read of an item, and the mapping of
 * store failures to 503 (throttled, unreachable or out of time) or 500 (anything else). Each
 * method is given the table (`PlantsTableDeps`: a document client and the table's name) first.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { isStoreUnavailable } from '../../aws/dynamodb';
import { MaybeWritten } from '../../aws/sent-once';
import { PLANTS_TABLE } from '../../aws/tables';
import { ServiceUnavailable } from '../../http/answers';
import { indexBuildingError } from '../index-building';
import type { PlantsTableDeps } from '../table';

/** The table's partition key: a plant's id. */
export const KEY = PLANTS_TABLE.partitionKey.name;

/**
 * How long a create, change or delete may take with its reads and tries before it answers 503:
 * every call of it is aborted then (a write in flight may still be made). Under the plant
 * functions' 10 s timeout, with time left to answer: a Lambda timed out would be the gateway's
 * 500.
 */
export const WRITE_BUDGET_MS = 8_000;

/** The item under `id` as stored, marked or not (one strongly consistent GetItem). */
export async function item(
  table: PlantsTableDeps,
  id: bigint,
  signal?: AbortSignal,
): Promise<Record<string, unknown> | undefined> {
  const { Item } = await call(() =>
    table.plants.send(
      new GetCommand({ TableName: table.tableName, Key: { [KEY]: id }, ConsistentRead: true }),
      { abortSignal: signal },
    ),
  );
  return Item;
}

/** The item a failed write meets, and whether the write may have been made. */
export interface ItemMet {
  readonly found?: Record<string, unknown>;
  readonly maybe?: MaybeWritten;
}

/**
 * The item a conditional write that failed with `error` meets: read again (strongly consistent)
 * when the write may have been made (`maybe`: it was sent once, `sentOnce`), else the item that
 * refused it, the one the refusal returned (DynamoDB does, as ReturnValuesOnConditionCheckFailure
 * asks) or read (dynalite). Any other failure is thrown as `storeError` maps it.
 */
export async function itemAfter(
  table: PlantsTableDeps,
  error: unknown,
  id: bigint,
  signal: AbortSignal,
): Promise<ItemMet> {
  if (error instanceof MaybeWritten) return { found: await item(table, id, signal), maybe: error };
  if (!(error instanceof ConditionalCheckFailedException)) throw storeError(error);
  return {
    found: error.Item
      ? unmarshall(error.Item, { wrapNumbers: true })
      : await item(table, id, signal),
  };
}

/** `send`'s answer; its failure as `storeError` maps it. */
export async function call<T>(send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (error) {
    throw storeError(error);
  }
}

/** A store failure as the caller answers it: 503 when DynamoDB may answer later, else as it is. */
export function storeError(error: unknown): unknown {
  // A call aborted at the end of `WRITE_BUDGET_MS`: out of time.
  if (isStoreUnavailable(error) || (error as Error)?.name === 'AbortError')
    return new ServiceUnavailable('store unavailable', { cause: error });
  return indexBuildingError(error) ?? error;
}
