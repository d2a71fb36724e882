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
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { isStoreUnavailable, tableDepsFromEnvironment, type TableDeps } from '../aws/dynamodb';
import { MaybeWritten, sentOnce } from '../aws/sent-once';
import { ServiceUnavailable } from '../http/answers';
import { differingMembers, type NewPlant, type PlantMembers, type StoredPlant } from './schemas';
import type { MethodActions } from '../aws/table-definition';
import { PLANTS_BY_TAG_INDEX, PLANTS_TABLE } from '../aws/tables';
import { indexBuildingError } from './index-building';
import { FIRST_VERSION } from '../plants/versions';
import {
  changeExpression,
  isEmptyIndexKeyRefusal,
  newWriteId,
  PLANT_ATTRIBUTES,
  readMembers,
  storedMembers,
  tombstoneExpression,
  withEmptyKeysMarked,
  withWriteId,
  type ItemUpdate,
  type PlantChange,
} from '../plants/item';
import {
  changesSomething,
  createOverTombstone,
  leavesUnchanged,
  preconditionsHold,
  withCondition,
  writeCondition,
  type Preconditions,
} from './write-condition';

const KEY = PLANTS_TABLE.partitionKey.name;
const {
  deletedAt: DELETED_AT,
  writeId: WRITE_ID,
  previousWriteId: PREVIOUS_WRITE_ID,
  version: VERSION,
} = PLANT_ATTRIBUTES;
const CREATED_AT = 'createdAt';
/** A create's puts at most: one, and one over each tombstone met. */
const PUT_ATTEMPTS = 3;

import {
  decodeId,
  decodePlant,
  decodeVersioned,
  firstVersionOf,
  isDeleted,
  versionOf,
  type Versioned,
} from './decode';

export {
  decodeImageState,
  decodePlant,
  decodePlantImage,
  decodeVersioned,
  type ImageState,
  type Versioned,
} from './decode';

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

/** What a change answers: the plant and its version, `unchanged` when it wrote nothing. */
export interface Changed extends Versioned {
  readonly unchanged?: true;
}

/** What a delete answers: the deletion's version (the tombstone keeps no member of the plant). */
export interface Deleted {
  readonly version: number;
}

/**
 * Why a conditional write wrote nothing: no plant under the id, or a version that fails the
 * preconditions.
 */
export type Refusal =
  { readonly refused: 'missing' } | { readonly refused: 'version'; readonly version: number };

/** Who changes or deletes, and when. */
export interface ChangeAudit {
  readonly at: string;
  readonly by: string;
}

/** What the operations use of the table: tests may inject any object that has it. */
export type PlantsStore = Pick<
  PlantsTable,
  'putNew' | 'get' | 'update' | 'delete' | 'scan' | 'queryByTag'
>;

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
   * A deleted plant's tombstone does not hold its id: the put is made again over that very
   * tombstone (its version in the condition), and the new plant continues its life's numbering
   * (version and `firstVersion` one more than the tombstone's), so that no ETag of the id repeats
   * while the tombstone is kept; it is created after the tombstone's incarnation too (this
   * request's clock may have been read before a slower create's), so that a receiver ordering
   * one id's events by (createdAt, version) never takes the new plant for a stale one.
   */
  async putNew(
    plant: NewPlant,
    audit: { readonly createdAt: string; readonly createdBy: string },
  ): Promise<TakenBy | undefined> {
    let tombstone: Record<string, unknown> | undefined;
    for (let attempt = 0; attempt < PUT_ATTEMPTS; attempt += 1) {
      const old = await this.putUnlessTaken(plant, audit, tombstone);
      if (old === 'written') return undefined;
      if (old && !isDeleted(old)) return readMembers(old);
      // A tombstone to put over (or nothing: gone since, purged by TTL).
      tombstone = old;
    }
    throw new ServiceUnavailable('the plant id is being created and deleted concurrently');
  }

  /**
   * One conditional put of a create, on a free id or over `tombstone`; the item that refused it.
   * The put is sent once (`sentOnce`): when it may have been made, what it found is read instead
   * (`foundByMaybePut`).
   */
  private async putUnlessTaken(
    plant: NewPlant,
    audit: { readonly createdAt: string; readonly createdBy: string },
    tombstone: Record<string, unknown> | undefined,
  ): Promise<'written' | Record<string, unknown> | undefined> {
    const over = tombstone && createOverTombstone(tombstone, audit.createdAt);
    try {
      await this.client.send(
        sentOnce(
          new PutCommand({
            TableName: this.tableName,
            Item: { [KEY]: plant.id, ...storedMembers(plant), ...audit, ...over?.attributes },
            ConditionExpression: over?.expression ?? 'attribute_not_exists(#key)',
            ExpressionAttributeNames: over?.names ?? { '#key': KEY },
            ...(over && Object.keys(over.values).length > 0
              ? { ExpressionAttributeValues: over.values }
              : {}),
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        ),
      );
      return 'written';
    } catch (error) {
      if (error instanceof MaybeWritten) return this.foundByMaybePut(plant, tombstone, error);
      if (!(error instanceof ConditionalCheckFailedException)) throw storeError(error);
      if (error.Item) return unmarshall(error.Item, { wrapNumbers: true });
    }
    return this.item(plant.id);
  }

  /**
   * What a put that may have been made leaves `putNew` to go on with, read (strongly consistent):
   * - the item it was to be put over, as it was (no item, or that very tombstone): not made, so
   *   put again;
   * - a plant with its members: made, by it or by a create of the same plant (a safe retry).
   * Anything else may be its plant changed or deleted since, or another's: 503, never a 409 for a
   * plant it created, nor a put over a tombstone that may be its own plant's.
   */
  private async foundByMaybePut(
    plant: NewPlant,
    tombstone: Record<string, unknown> | undefined,
    failure: MaybeWritten,
  ): Promise<Record<string, unknown> | undefined> {
    const item = await this.item(plant.id);
    // No item: a put makes one, and TTL removes only tombstones of older builds.
    if (!item) return undefined;
    if (isDeleted(item)) {
      if (tombstone && versionOf(item) === versionOf(tombstone)) return item;
    } else if (differingMembers(readMembers(item), plant).length === 0) return item;
    throw new ServiceUnavailable('store unavailable', { cause: failure.failure });
  }

  /**
   * The plant stored under `id` and its version, read strongly consistent (one GetItem), or
   * `undefined` when there is none (or it is being deleted).
   */
  async get(id: bigint): Promise<Versioned | undefined> {
    const item = await this.item(id);
    return item && !isDeleted(item) ? decodeVersioned(item) : undefined;
  }

  /**
   * Changes the plant under `id` (one UpdateItem): sets and removes its members as `change`
   * says, raises its version by one and records who and when. Writes only when a plant is there,
   * meets the preconditions, and would change: answers the plant after the change, the plant as
   * it is (`unchanged`) when the change would change nothing, or why nothing was written.
   */
  async update(
    id: bigint,
    change: PlantChange,
    options: Preconditions & { readonly audit: ChangeAudit },
  ): Promise<Changed | Refusal> {
    const { at, by } = options.audit;
    const expression = withCondition(
      changeExpression(change, { at, by }),
      changesSomething(change),
    );
    return this.conditionalWrite(id, expression, options, decodeVersioned, (item) =>
      leavesUnchanged(change, item),
    );
  }

  /**
   * Deletes the plant under `id`, when it is there and meets the preconditions; answers it with
   * the deletion's version, or why nothing was deleted. One UpdateItem makes the item its
   * tombstone (`tombstoneExpression`: version + 1, `deletedAt`, out of the tag index, removed by
   * TTL weeks later), so that the stream's record of the deletion, and later a replay, say which
   * plant and version went (a REMOVE record of a NEW_IMAGE stream holds only the key). A
   * tombstone is absent for every reader and writer but a create, which continues its versions.
   */
  async delete(
    id: bigint,
    options: Preconditions & { readonly at: string },
  ): Promise<Deleted | Refusal> {
    return this.conditionalWrite(id, tombstoneExpression(options.at), options, (item) => ({
      version: versionOf(item),
    }));
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
    const plants = Items.filter((item) => !isDeleted(item)).map(decodePlant);
    return LastEvaluatedKey ? { plants, last: decodeId(LastEvaluatedKey[KEY]) } : { plants };
  }

  /**
   * At most `limit` plants with the tag `tag` after the id `after`, in id order (one Query of the
   * index; an index is eventually consistent, so a change shows there a moment after it is made).
   * While the index is still being built (after an upgrade added it) DynamoDB refuses the read:
   * 503, never a partial list.
   */
  async queryByTag(tag: string, limit: number, after?: bigint): Promise<ScanPage> {
    const { partitionKey, sortKey } = PLANTS_BY_TAG_INDEX;
    const { Items = [], LastEvaluatedKey } = await this.call(() =>
      this.client.send(
        new QueryCommand({
          TableName: this.tableName,
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
    const plants = Items.filter((item) => !isDeleted(item)).map(decodePlant);
    return LastEvaluatedKey ? { plants, last: decodeId(LastEvaluatedKey[KEY]) } : { plants };
  }

  /**
   * Every plant created or last changed at or after `since` (and before `until`), and every
   * tombstone of a delete made then, a page at a time, as DynamoDB JSON (as a stream image has
   * it: `webhook replay` makes the same bodies the fan-out made). A filtered Scan reads the whole
   * table: the price of needing no index for a rare recovery.
   */
  async *storedImages(range: {
    readonly since: string;
    readonly until?: string;
  }): AsyncGenerator<Record<string, AttributeValue>[]> {
    const within = (attribute: string) =>
      range.until === undefined
        ? `${attribute} >= :since`
        : `(${attribute} >= :since AND ${attribute} < :until)`;
    let after: Record<string, AttributeValue> | undefined;
    do {
      const { Items = [], LastEvaluatedKey } = await this.call(() =>
        this.client.send(
          new RawScanCommand({
            TableName: this.tableName,
            ConsistentRead: true,
            FilterExpression: `(attribute_not_exists(${DELETED_AT}) AND (${within(CREATED_AT)} OR ${within(PLANT_ATTRIBUTES.updatedAt)})) OR ${within(DELETED_AT)}`,
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

  /** The item under `id` as stored, marked or not (one strongly consistent GetItem). */
  private async item(id: bigint): Promise<Record<string, unknown> | undefined> {
    const { Item } = await this.call(() =>
      this.client.send(
        new GetCommand({ TableName: this.tableName, Key: { [KEY]: id }, ConsistentRead: true }),
      ),
    );
    return Item;
  }

  /**
   * One UpdateItem of a plant that is there, not deleted and meeting `preconditions`; the item
   * after it, the item as it is when `unchanged` says the write had nothing to do, or why it
   * wrote nothing: from the failed condition's old item when the engine returns it (DynamoDB
   * does), else from a strongly consistent read (dynalite). A tombstone is no plant: missing.
   */
  private async conditionalWrite<T extends { readonly version: number }>(
    id: bigint,
    expression: ItemUpdate,
    preconditions: Preconditions,
    answer: (item: Record<string, unknown>) => T,
    unchanged: (item: Record<string, unknown>) => boolean = () => false,
  ): Promise<T | Changed | Refusal> {
    const write = (update: ItemUpdate) => this.write(id, update, preconditions, answer, unchanged);
    try {
      return await write(expression);
    } catch (error) {
      if (!isEmptyIndexKeyRefusal(error)) throw error;
    }
    // An item stored before the index with an empty tag: stored as its marker by this write,
    // on the condition that the tag is still empty.
    const marked = await write(withEmptyKeysMarked(expression));
    if (!('refused' in marked && marked.refused === 'version')) return marked;
    // Refused: a concurrent change may have given the tag a value since, which is no precondition
    // of the caller's. Once more as asked, judged by its own condition (a second empty-tag refusal
    // means the tag keeps changing under us: unavailable, retried by the caller).
    try {
      return await write(expression);
    } catch (error) {
      if (!isEmptyIndexKeyRefusal(error)) throw error;
      throw new ServiceUnavailable('store unavailable', { cause: error });
    }
  }

  /**
   * One try of `conditionalWrite`, answering the written item as `answer` reads it; an empty index
   * key's refusal is thrown as it came. The write is sent once (`sentOnce`) and records an id of
   * its own (`withWriteId`): when it may have been made, the item says whether it was
   * (`maybeWritten`).
   */
  private async write<T extends { readonly version: number }>(
    id: bigint,
    expression: ItemUpdate,
    preconditions: Preconditions,
    answer: (item: Record<string, unknown>) => T,
    unchanged: (item: Record<string, unknown>) => boolean,
  ): Promise<T | Changed | Refusal> {
    const condition = writeCondition(preconditions);
    const writeId = newWriteId();
    const { update, names, values } = withWriteId(expression, writeId);
    let old: Record<string, unknown> | undefined;
    try {
      const { Attributes } = await this.client.send(
        sentOnce(
          new UpdateCommand({
            TableName: this.tableName,
            Key: { [KEY]: id },
            UpdateExpression: update,
            ConditionExpression: [condition.expression, expression.condition]
              .filter(Boolean)
              .join(' AND '),
            ExpressionAttributeNames: { ...names, ...condition.names },
            ExpressionAttributeValues: { ':one': FIRST_VERSION, ...values, ...condition.values },
            ReturnValues: 'ALL_NEW',
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        ),
      );
      return answer(Attributes!);
    } catch (error) {
      if (isEmptyIndexKeyRefusal(error)) throw error;
      if (error instanceof MaybeWritten) return this.maybeWritten(id, writeId, answer, error);
      if (!(error instanceof ConditionalCheckFailedException)) throw storeError(error);
      old = error.Item ? unmarshall(error.Item, { wrapNumbers: true }) : await this.item(id);
    }
    if (!old || isDeleted(old)) return { refused: 'missing' };
    const version = versionOf(old);
    if (preconditionsHold(preconditions, version) && unchanged(old)) {
      return { ...decodeVersioned(old), unchanged: true };
    }
    return { refused: 'version', version };
  }

  /**
   * What a change or delete that may have been made answers, from the item read (strongly
   * consistent): the item, when it bears the write's id (made, and written over by nobody since);
   * for a delete, the tombstone it made, when a plant has been created over it since (its
   * `previousWriteId`: the version before that plant's first). Else nobody can tell whether it was
   * made and written over since: 503, never a 404 or 412 for a write that may have been made.
   */
  private async maybeWritten<T extends { readonly version: number }>(
    id: bigint,
    writeId: string,
    answer: (item: Record<string, unknown>) => T,
    failure: MaybeWritten,
  ): Promise<T> {
    const item = await this.item(id);
    if (item?.[WRITE_ID] === writeId) return answer(item);
    if (item?.[PREVIOUS_WRITE_ID] === writeId) {
      return answer({ [VERSION]: firstVersionOf(item) - 1, [DELETED_AT]: item.createdAt });
    }
    throw new ServiceUnavailable('store unavailable', { cause: failure.failure });
  }

  private async call<T>(send: () => Promise<T>): Promise<T> {
    try {
      return await send();
    } catch (error) {
      throw storeError(error);
    }
  }
}

/** The DynamoDB actions of each method (a function given a method is granted them). */
export const PLANTS_TABLE_ACTIONS = {
  // A put (again, over a tombstone it met); the GetItem when refused (dynalite).
  putNew: ['dynamodb:PutItem', 'dynamodb:GetItem'],
  get: ['dynamodb:GetItem'],
  // One UpdateItem; on a refused condition, the GetItem that says why (dynalite returns no item).
  update: ['dynamodb:UpdateItem', 'dynamodb:GetItem'],
  // The UpdateItem that makes it a tombstone, and its GetItem when refused.
  delete: ['dynamodb:UpdateItem', 'dynamodb:GetItem'],
  scan: ['dynamodb:Scan'],
  // On the index only (PLANTS_INDEX_METHODS): IAM names it `<table ARN>/index/byTag`.
  queryByTag: ['dynamodb:Query'],
  storedImages: ['dynamodb:Scan'],
} as const satisfies MethodActions<PlantsTable>;

/** The methods that read an index rather than the table: their actions are granted on it alone. */
export const PLANTS_INDEX_METHODS = {
  queryByTag: PLANTS_BY_TAG_INDEX.name,
} as const satisfies Partial<Record<keyof typeof PLANTS_TABLE_ACTIONS, string>>;

function storeError(error: unknown): unknown {
  if (isStoreUnavailable(error))
    return new ServiceUnavailable('store unavailable', { cause: error });
  return indexBuildingError(error) ?? error;
}
