/** The plants table's `putNew`: a create, one conditional put (again over each tombstone met). */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { sentOnce } from '../../aws/sent-once';
import { ServiceUnavailable } from '../../http/answers';
import { firstVersionOf, isDeleted, versionOf } from '../decode';
import { newWriteId, PLANT_ATTRIBUTES, readMembers, storedMembers } from '../item';
import type { NewPlant } from '../schemas';
import type { PlantsTableDeps, TakenBy } from '../table';
import { FIRST_VERSION } from '../versions';
import { createOverTombstone } from '../write-condition';
import { itemAfter, KEY, WRITE_BUDGET_MS, type ItemMet } from './calls';

/** A create's puts at most: one, and one over each tombstone met. */
const PUT_ATTEMPTS = 3;

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
export async function putNew(
  table: PlantsTableDeps,
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
    const put = await putUnlessTaken(table, plant, { ...audit, createId }, tombstone, signal);
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
async function putUnlessTaken(
  table: PlantsTableDeps,
  plant: NewPlant,
  audit: { readonly createdAt: string; readonly createdBy: string; readonly createId: string },
  tombstone: Record<string, unknown> | undefined,
  signal: AbortSignal,
): Promise<{ found: 'written' | Record<string, unknown> | undefined; maybe?: true }> {
  const over = tombstone && createOverTombstone(tombstone, audit.createdAt);
  let after: ItemMet;
  try {
    await table.plants.send(
      sentOnce(
        new PutCommand({
          TableName: table.tableName,
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
    after = await itemAfter(table, error, plant.id, signal);
  }
  const { found, maybe } = after;
  const { createId, previousCreateId } = PLANT_ATTRIBUTES;
  if (found?.[createId] === audit.createId || found?.[previousCreateId] === audit.createId) {
    return { found: 'written' };
  }
  return { found, ...(maybe && { maybe: true }) };
}

/**
 * Whether `stored`'s life may have begun two lives or more after a plant begun at version `at`
 * by a create stamped `createdAt`: at a version at least four later (a create and a delete each,
 * twice), and created after it. A create over a tombstone is stamped after the tombstone's life
 * (`createOverTombstone`), so every life after the create's plant is stamped after it, whatever
 * the clocks: an item stamped at or before it is another create's, under which this create was
 * not made. An item without a stamp (older builds) may follow.
 */
function mayFollow(stored: Record<string, unknown>, at: number, createdAt: string): boolean {
  // The latest version its life can have begun at: its first, or its tombstone's last.
  const began = isDeleted(stored) ? versionOf(stored) - 1 : firstVersionOf(stored);
  return began >= at + 4 && !(Date.parse(String(stored.createdAt)) <= Date.parse(createdAt));
}
