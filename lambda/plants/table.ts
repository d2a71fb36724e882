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
import type { NewPlant, PlantMembers, StoredPlant } from './schemas';
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
    // One id for every put of this create: whichever is made, the item then bears it.
    const createId = newWriteId();
    const signal = AbortSignal.timeout(WRITE_BUDGET_MS);
    let tombstone: Record<string, unknown> | undefined;
    // The first version a put that may have been made would have made: the create's plant, if it
    // was made, began its life there.
    let maybeAt: number | undefined;
    for (let attempt = 0; attempt < PUT_ATTEMPTS; attempt += 1) {
      const put = await this.putUnlessTaken(plant, { ...audit, createId }, tombstone, signal);
      if (put.found === 'written') return undefined;
      if (put.maybe) maybeAt ??= tombstone ? versionOf(tombstone) + 1 : FIRST_VERSION;
      const old = put.found;
      // An item whose life may have begun two lives after the create's plant's, since the create
      // began, may follow that plant: its ids reach one life back, so they cannot tell.
      if (maybeAt !== undefined && old && mayFollow(old, maybeAt, audit.createdAt)) {
        throw new ServiceUnavailable('store unavailable: a create may have been made');
      }
      if (old && !isDeleted(old)) return readMembers(old);
      // A tombstone to put over (or nothing: gone since, purged by TTL).
      tombstone = old;
    }
    throw new ServiceUnavailable('the plant id is being created and deleted concurrently');
  }

  /**
   * One conditional put of a create, on a free id or over `tombstone`: `written`, or the item that
   * refused it. The put is sent once (`sentOnce`): when it may have been made, the item is read,
   * and decides as a refusal's does. An item that bears the create's id, as `createId` (its
   * plant, or that plant's tombstone) or `previousCreateId` (the plant created over that
   * tombstone), is `written`: this put, or an earlier one of the same create whose answer was lost.
   * Any other item says this create was not made: the one it was to be put over (put again), or
   * another create's plant (200 or 409 by its members).
   */
  private async putUnlessTaken(
    plant: NewPlant,
    audit: { readonly createdAt: string; readonly createdBy: string; readonly createId: string },
    tombstone: Record<string, unknown> | undefined,
    signal: AbortSignal,
  ): Promise<{ found: 'written' | Record<string, unknown> | undefined; maybe?: true }> {
    const over = tombstone && createOverTombstone(tombstone, audit.createdAt);
    let found: Record<string, unknown> | undefined;
    let maybe: true | undefined;
    try {
      await this.client.send(
        sentOnce(
          new PutCommand({
            TableName: this.tableName,
            Item: {
              [KEY]: plant.id,
              ...storedMembers(plant),
              createdAt: audit.createdAt,
              createdBy: audit.createdBy,
              [PLANT_ATTRIBUTES.createId]: audit.createId,
              ...over?.attributes,
            },
            ConditionExpression: over?.expression ?? 'attribute_not_exists(#key)',
            ExpressionAttributeNames: over?.names ?? { '#key': KEY },
            ...(over && Object.keys(over.values).length > 0
              ? { ExpressionAttributeValues: over.values }
              : {}),
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        ),
        { abortSignal: signal },
      );
      return { found: 'written' };
    } catch (error) {
      if (error instanceof MaybeWritten) {
        maybe = true;
        found = await this.item(plant.id, signal);
      } else if (!(error instanceof ConditionalCheckFailedException)) throw storeError(error);
      else found = await this.refusedBy(error, plant.id, signal);
    }
    const { createId, previousCreateId } = PLANT_ATTRIBUTES;
    if (found?.[createId] === audit.createId || found?.[previousCreateId] === audit.createId) {
      return { found: 'written' };
    }
    return { found, ...(maybe && { maybe }) };
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
  private async item(
    id: bigint,
    signal?: AbortSignal,
  ): Promise<Record<string, unknown> | undefined> {
    const { Item } = await this.call(() =>
      this.client.send(
        new GetCommand({ TableName: this.tableName, Key: { [KEY]: id }, ConsistentRead: true }),
        { abortSignal: signal },
      ),
    );
    return Item;
  }

  /**
   * The item that refused a conditional write: the one the refusal returned (DynamoDB does, as
   * ReturnValuesOnConditionCheckFailure asks), else a strongly consistent read (dynalite).
   */
  private async refusedBy(
    refusal: ConditionalCheckFailedException,
    id: bigint,
    signal: AbortSignal,
  ): Promise<Record<string, unknown> | undefined> {
    return refusal.Item ? unmarshall(refusal.Item, { wrapNumbers: true }) : this.item(id, signal);
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
    const signal = AbortSignal.timeout(WRITE_BUDGET_MS);
    const write = (update: ItemUpdate) =>
      this.write(id, update, preconditions, answer, unchanged, signal);
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
   * its own (`withWriteId`): when it may have been made, the item read says whether it was
   * (`madeBy`), and the write is sent again only when the item shows it was not (`stillAt`).
   */
  private async write<T extends { readonly version: number }>(
    id: bigint,
    expression: ItemUpdate,
    preconditions: Preconditions,
    answer: (item: Record<string, unknown>) => T,
    unchanged: (item: Record<string, unknown>) => boolean,
    signal: AbortSignal,
  ): Promise<T | Changed | Refusal> {
    const condition = writeCondition(preconditions);
    const writeId = newWriteId();
    const { update, names, values } = withWriteId(expression, writeId);
    const send = () =>
      this.client.send(
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
        { abortSignal: signal },
      );
    let old: Record<string, unknown> | undefined;
    let maybe: MaybeWritten | undefined;
    for (let attempt = 1; ; attempt += 1) {
      try {
        const { Attributes } = await send();
        return answer(Attributes!);
      } catch (error) {
        if (isEmptyIndexKeyRefusal(error)) throw error;
        if (error instanceof MaybeWritten) {
          maybe = error;
          const item = await this.item(id, signal);
          const made = madeBy(item, writeId, answer);
          if (made) return made;
          if (attempt < WRITE_ATTEMPTS && stillAt(preconditions, item)) continue;
          throw new ServiceUnavailable('store unavailable', { cause: error.failure });
        }
        if (!(error instanceof ConditionalCheckFailedException)) throw storeError(error);
        old = await this.refusedBy(error, id, signal);
      }
      break;
    }
    // A try whose answer was lost, made after the item was read: this one is refused by it.
    const made = madeBy(old, writeId, answer);
    if (made) return made;
    // Refused after a try that may have been made, by an item without its id: that try may have
    // been made and written over since, so no refusal (nor `unchanged`) can be answered for it;
    // unless the item is still at the one version `If-Match` names, which no try was made over.
    if (maybe && !stillAt(preconditions, old)) {
      throw new ServiceUnavailable('store unavailable', { cause: maybe.failure });
    }
    if (!old || isDeleted(old)) return { refused: 'missing' };
    const version = versionOf(old);
    if (preconditionsHold(preconditions, version) && unchanged(old)) {
      return { ...decodeVersioned(old), unchanged: true };
    }
    return { refused: 'version', version };
  }

  private async call<T>(send: () => Promise<T>): Promise<T> {
    try {
      return await send();
    } catch (error) {
      throw storeError(error);
    }
  }
}

/** A change's or delete's tries: one, and one more each time the item shows it was not made. */
const WRITE_ATTEMPTS = 3;

/**
 * How long a create, change or delete may take with its reads and tries before it answers 503:
 * every call of it is aborted then (a write in flight may still be made). Under the plant
 * functions' 10 s timeout, with time left to answer: a Lambda timed out would be the gateway's
 * 500.
 */
export const WRITE_BUDGET_MS = 8_000;

/**
 * Whether `item`'s life may have begun two lives or more after a plant begun at version `at` by a
 * create stamped `createdAt`: at a version at least four later (a create and a delete each,
 * twice), and created after it. A create over a tombstone is stamped after the tombstone's life
 * (`createOverTombstone`), so every life after the create's plant is stamped after it, whatever
 * the clocks: an item stamped at or before it is another create's, under which this create was
 * not made. An item without a stamp (older builds) may follow.
 */
function mayFollow(item: Record<string, unknown>, at: number, createdAt: string): boolean {
  // The latest version its life can have begun at: its first, or its tombstone's last.
  const began = isDeleted(item) ? versionOf(item) - 1 : firstVersionOf(item);
  return began >= at + 4 && !(Date.parse(String(item.createdAt)) <= Date.parse(createdAt));
}

/**
 * What a change or delete answers from the item it finds, when that item shows the write made:
 * the item itself, when it bears the write's id (made, and written over by nobody since); for a
 * delete, the tombstone it made, when a plant has been created over it since (its
 * `previousWriteId`: the version before that plant's first). Else `undefined`.
 */
function madeBy<T>(
  item: Record<string, unknown> | undefined,
  writeId: string,
  answer: (item: Record<string, unknown>) => T,
): T | undefined {
  if (item?.[WRITE_ID] === writeId) return answer(item);
  if (item?.[PREVIOUS_WRITE_ID] === writeId) {
    return answer({ [VERSION]: firstVersionOf(item) - 1, [DELETED_AT]: item.createdAt });
  }
  return undefined;
}

/**
 * Whether `item` shows that a write conditioned on `preconditions`, which may have been made, was
 * not: it is the plant at the one version `If-Match` names, so no write has been made since that
 * version, and the write's own condition lets at most one of its tries be made. Without such an
 * `If-Match`, a write made and then written over leaves an item that shows nothing of it.
 */
function stillAt(preconditions: Preconditions, item: Record<string, unknown> | undefined): boolean {
  const versions = preconditions.ifMatch?.any ? [] : (preconditions.ifMatch?.versions ?? []);
  return (
    versions.length === 1 &&
    item !== undefined &&
    !isDeleted(item) &&
    versionOf(item) === versions[0]
  );
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
  // A call aborted at the end of `WRITE_BUDGET_MS`: out of time.
  if (isStoreUnavailable(error) || (error as Error)?.name === 'AbortError')
    return new ServiceUnavailable('store unavailable', { cause: error });
  return indexBuildingError(error) ?? error;
}
