/** Creating a plant in DynamoDB: one conditional put, and a comparison on conflict. */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { Conflict, ServiceUnavailable } from '../shared/http';
import { isStoreUnavailable } from '../shared/dynamodb';
import type { NewPlant, Plant } from '../shared/schemas';
import { PLANTS_TABLE } from '../shared/tables';

/** Where plants are stored. */
export interface PlantStore {
  readonly client: DynamoDBDocumentClient;
  readonly tableName: string;
}

/** `created`: written now. `unchanged`: the same plant was already stored (a safe retry). */
export type CreateOutcome = 'created' | 'unchanged';

const KEY = PLANTS_TABLE.partitionKey.name;

/**
 * Stores `plant` unless its id is taken. A taken id with the same name and tag is a retry and
 * answers `unchanged` without writing; another plant under the id is a `Conflict`.
 */
export async function createPlant(
  store: PlantStore,
  plant: NewPlant,
  createdBy: string,
  now: Date = new Date(),
): Promise<CreateOutcome> {
  try {
    await store.client.send(
      new PutCommand({
        TableName: store.tableName,
        Item: { ...plant, createdAt: now.toISOString(), createdBy },
        ConditionExpression: 'attribute_not_exists(#key)',
        ExpressionAttributeNames: { '#key': KEY },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return 'created';
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw storeError(error);
    const stored = error.Item
      ? { name: error.Item.name?.S, tag: error.Item.tag?.S }
      : await readStored(store, plant.id);
    if (stored.name === plant.name && stored.tag === plant.tag) return 'unchanged';
    throw new Conflict(`id: ${plant.id} is already taken by a plant with another name or tag`);
  }
}

/** The stored plant's name and tag, read strongly consistent (engines that return no old item). */
async function readStored(store: PlantStore, id: bigint): Promise<Partial<Plant>> {
  let item: Record<string, unknown> | undefined;
  try {
    ({ Item: item } = await store.client.send(
      new GetCommand({ TableName: store.tableName, Key: { [KEY]: id }, ConsistentRead: true }),
    ));
  } catch (error) {
    throw storeError(error);
  }
  // The put saw the id taken, so the item can only be missing if it was deleted since.
  if (!item) throw new ServiceUnavailable('the plant was deleted during the request');
  return { name: item.name as string | undefined, tag: item.tag as string | undefined };
}

function storeError(error: unknown): unknown {
  return isStoreUnavailable(error)
    ? new ServiceUnavailable('store unavailable', { cause: error })
    : error;
}
