/**
 * The plants table, and the only module that talks to it: the key name, the decoding of
 * DynamoDB numbers (read as `NumberValue`, never a float64) into `bigint` ids, and the mapping
 * of store failures to 503 (throttled or unreachable) or 500 (anything else).
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  ScanCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { isStoreUnavailable, tableDepsFromEnvironment, type TableDeps } from './dynamodb';
import { ServiceUnavailable } from './http';
import type { NewPlant, StoredPlant } from './schemas';
import { PLANTS_TABLE } from './tables';

const KEY = PLANTS_TABLE.partitionKey.name;

/** What a handler needs to reach the table: a document client and the table's name. */
export type PlantsTableDeps = TableDeps<'plants'>;

/** Every plants function's configuration, read once at cold start. */
export function plantsTableFromEnvironment(env: NodeJS.ProcessEnv = process.env): PlantsTableDeps {
  return tableDepsFromEnvironment('plants', PLANTS_TABLE, env);
}

/** A plant's name and tag as stored, when a put found its id taken. */
export interface TakenBy {
  readonly name?: unknown;
  readonly tag?: unknown;
}

/** One page of a walk over the table: `last` is the last key evaluated, when more may follow. */
export interface ScanPage {
  readonly plants: StoredPlant[];
  readonly last?: bigint;
}

/** What the operations use of the table: tests may inject any object that has it. */
export type PlantsStore = Pick<PlantsTable, 'putNew' | 'get' | 'delete' | 'scan'>;

/** The plants table through one document client. */
export class PlantsTable {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /**
   * Stores `plant` unless its id is taken (one conditional put). Answers `undefined` when it
   * wrote, else the stored plant's name and tag: from the failed condition when the engine
   * returns the old item (DynamoDB does), from a strongly consistent read when not (dynalite).
   */
  async putNew(
    plant: NewPlant,
    audit: { readonly createdAt: string; readonly createdBy: string },
  ): Promise<TakenBy | undefined> {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...plant, ...audit },
          ConditionExpression: 'attribute_not_exists(#key)',
          ExpressionAttributeNames: { '#key': KEY },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return undefined;
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw storeError(error);
      if (error.Item) return { name: error.Item.name?.S, tag: error.Item.tag?.S };
    }
    const stored = await this.get(plant.id);
    // The put saw the id taken, so the item can only be missing if it was deleted since.
    if (!stored) throw new ServiceUnavailable('the plant was deleted during the request');
    return stored;
  }

  /** The plant stored under `id`, read strongly consistent (one GetItem), or `undefined`. */
  async get(id: bigint): Promise<StoredPlant | undefined> {
    const { Item } = await this.call(() =>
      this.client.send(
        new GetCommand({ TableName: this.tableName, Key: { [KEY]: id }, ConsistentRead: true }),
      ),
    );
    return Item && decodePlant(Item);
  }

  /** Deletes the plant under `id` (one DeleteItem) and answers it, or `undefined` if there was none. */
  async delete(id: bigint): Promise<StoredPlant | undefined> {
    const { Attributes } = await this.call(() =>
      this.client.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: { [KEY]: id },
          ReturnValues: 'ALL_OLD',
        }),
      ),
    );
    return Attributes && decodePlant(Attributes);
  }

  /**
   * At most `limit` plants after the key `after` (one strongly consistent Scan). DynamoDB may
   * answer fewer, even none, and still a `last` key: the walk ends only when `last` is absent.
   */
  async scan(limit: number, after?: bigint): Promise<ScanPage> {
    const { Items = [], LastEvaluatedKey } = await this.call(() =>
      this.client.send(
        new ScanCommand({
          TableName: this.tableName,
          Limit: limit,
          ConsistentRead: true,
          ...(after === undefined ? {} : { ExclusiveStartKey: { [KEY]: after } }),
        }),
      ),
    );
    const plants = Items.map(decodePlant);
    return LastEvaluatedKey ? { plants, last: decodeId(LastEvaluatedKey[KEY]) } : { plants };
  }

  private async call<T>(send: () => Promise<T>): Promise<T> {
    try {
      return await send();
    } catch (error) {
      throw storeError(error);
    }
  }
}

/** A stored item as a plant; any other attribute (createdAt, createdBy) stays in the table. */
function decodePlant(item: Record<string, unknown>): StoredPlant {
  const { name, tag } = item;
  if (typeof name !== 'string' || (tag !== undefined && typeof tag !== 'string')) {
    throw new Error(`the stored plant ${String(item[KEY])} has no string name or a non-string tag`);
  }
  const id = decodeId(item[KEY]);
  return tag === undefined ? { id, name } : { id, name, tag };
}

/** A DynamoDB number (a `NumberValue` with its exact digits) as a `bigint`. */
function decodeId(value: unknown): bigint {
  // NumberValue's toString is its exact decimal text; BigInt refuses anything but an integer.
  return BigInt(String(value));
}

function storeError(error: unknown): unknown {
  return isStoreUnavailable(error)
    ? new ServiceUnavailable('store unavailable', { cause: error })
    : error;
}
