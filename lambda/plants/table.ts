/**
 * The plants table, and the only module that talks to it: the key name, the decoding of
 * DynamoDB numbers (read as `NumberValue`, never a float64) into `bigint` ids, and the mapping
 * of store failures to 503 (throttled or unreachable) or 500 (anything else).
 */
import {
  ConditionalCheckFailedException,
  ScanCommand as RawScanCommand,
  type AttributeValue,
} from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  ScanCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import * as v from 'valibot';
import { isStoreUnavailable, tableDepsFromEnvironment, type TableDeps } from '../aws/dynamodb';
import { ServiceUnavailable } from '../http/answers';
import {
  describeIssues,
  plantMembers,
  StoredPlant,
  type NewPlant,
  type PlantMembers,
} from './schemas';
import { PLANTS_TABLE } from '../aws/tables';

const KEY = PLANTS_TABLE.partitionKey.name;

/** What a handler needs to reach the table: a document client and the table's name. */
export type PlantsTableDeps = TableDeps<'plants'>;

/** Every plants function's configuration, read once at cold start. */
export function plantsTableFromEnvironment(env: NodeJS.ProcessEnv = process.env): PlantsTableDeps {
  return tableDepsFromEnvironment('plants', PLANTS_TABLE, env);
}

/** A plant's members as stored (the schema's, besides the id), when a put found its id taken. */
export type TakenBy = PlantMembers;

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
   * wrote, else the stored plant's members: from the failed condition when the engine
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
          Item: { [KEY]: plant.id, ...plantMembers(plant), ...audit },
          ConditionExpression: 'attribute_not_exists(#key)',
          ExpressionAttributeNames: { '#key': KEY },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return undefined;
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw storeError(error);
      if (error.Item) return plantMembers(unmarshall(error.Item, { wrapNumbers: true }));
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

  /**
   * Every plant stored at or after `since` (and before `until`), a page at a time, as DynamoDB
   * JSON (as a stream image has it: `webhook replay` makes the same bodies the fan-out made).
   * A filtered Scan reads the whole table: the price of needing no index for a rare recovery.
   */
  async *storedImages(range: {
    readonly since: string;
    readonly until?: string;
  }): AsyncGenerator<Record<string, AttributeValue>[]> {
    let after: Record<string, AttributeValue> | undefined;
    do {
      const { Items = [], LastEvaluatedKey } = await this.call(() =>
        this.client.send(
          new RawScanCommand({
            TableName: this.tableName,
            ConsistentRead: true,
            FilterExpression:
              range.until === undefined
                ? 'createdAt >= :since'
                : 'createdAt >= :since AND createdAt < :until',
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

  private async call<T>(send: () => Promise<T>): Promise<T> {
    try {
      return await send();
    } catch (error) {
      throw storeError(error);
    }
  }
}

/**
 * A stored item (as the document client reads it, numbers as `NumberValue`) as a plant: its id
 * and the schema's members, checked by `StoredPlant`; any other attribute (createdAt,
 * createdBy) stays in the table. An item that is not one is a bug: it throws, saying why.
 */
export function decodePlant(item: Record<string, unknown>): StoredPlant {
  const key = item[KEY];
  // A NumberValue's text is its exact digits; anything else is left for the schema to refuse.
  const id = /^-?\d+$/.test(String(key)) ? decodeId(key) : key;
  const result = v.safeParse(StoredPlant, { ...plantMembers(item), id });
  if (!result.success) {
    throw new Error(
      `the item ${String(key)} is not a stored plant: ${describeIssues(result.issues)}`,
    );
  }
  return result.output;
}

/** A stored item in DynamoDB's own JSON (a stream record's image, a refused put's old item) as a plant. */
export function decodePlantImage(image: Record<string, unknown>): StoredPlant {
  return decodePlant(unmarshall(image as Parameters<typeof unmarshall>[0], { wrapNumbers: true }));
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
