/**
 * The plants table's `update` and `delete`: one conditional UpdateItem of a plant that is there,
 * sent once, and sent again only when the item shows it was not made.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { MaybeWritten, sentOnce } from '../../aws/sent-once';
import { ServiceUnavailable } from '../../http/answers';
import { decodeVersioned, firstVersionOf, isDeleted, versionOf } from '../decode';
import {
  changeExpression,
  isEmptyIndexKeyRefusal,
  newWriteId,
  PLANT_ATTRIBUTES,
  tombstoneExpression,
  withEmptyKeysMarked,
  withWriteId,
  type ItemUpdate,
  type PlantChange,
} from '../item';
import type { ChangeAudit, Changed, Deleted, PlantsTableDeps, Refusal } from '../table';
import { FIRST_VERSION } from '../versions';
import {
  changesSomething,
  leavesUnchanged,
  preconditionsHold,
  withCondition,
  writeCondition,
  type Preconditions,
} from '../write-condition';
import { itemAfter, KEY, WRITE_BUDGET_MS } from './calls';

/** A change's or delete's tries: one, and one more each time the item shows it was not made. */
const WRITE_ATTEMPTS = 3;

/**
 * Changes the plant under `id` (one UpdateItem): sets and removes its members as `change`
 * says, raises its version by one and records who and when. Writes only when a plant is there,
 * meets the preconditions, and would change: answers the plant after the change, the plant as
 * it is (`unchanged`) when the change would change nothing, or why nothing was written.
 */
export async function update(
  table: PlantsTableDeps,
  id: bigint,
  change: PlantChange,
  options: Preconditions & { readonly audit: ChangeAudit },
): Promise<Changed | Refusal> {
  const { at, by } = options.audit;
  const expression = withCondition(changeExpression(change, { at, by }), changesSomething(change));
  return conditionalWrite(table, id, expression, options, decodeVersioned, (found) =>
    leavesUnchanged(change, found),
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
export async function remove(
  table: PlantsTableDeps,
  id: bigint,
  options: Preconditions & { readonly at: string },
): Promise<Deleted | Refusal> {
  return conditionalWrite(table, id, tombstoneExpression(options.at), options, (found) => ({
    version: versionOf(found),
  }));
}

/**
 * One UpdateItem of a plant that is there, not deleted and meeting `preconditions`; the item
 * after it, the item as it is when `unchanged` says the write had nothing to do, or why it
 * wrote nothing: from the failed condition's old item when the engine returns it (DynamoDB
 * does), else from a strongly consistent read (dynalite). A tombstone is no plant: missing.
 */
async function conditionalWrite<T extends { readonly version: number }>(
  table: PlantsTableDeps,
  id: bigint,
  expression: ItemUpdate,
  preconditions: Preconditions,
  answer: (item: Record<string, unknown>) => T,
  unchanged: (item: Record<string, unknown>) => boolean = () => false,
): Promise<T | Changed | Refusal> {
  const signal = AbortSignal.timeout(WRITE_BUDGET_MS);
  const write = (each: ItemUpdate) =>
    writeOnce(table, id, each, preconditions, answer, unchanged, signal);
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
async function writeOnce<T extends { readonly version: number }>(
  table: PlantsTableDeps,
  id: bigint,
  expression: ItemUpdate,
  preconditions: Preconditions,
  answer: (item: Record<string, unknown>) => T,
  unchanged: (item: Record<string, unknown>) => boolean,
  signal: AbortSignal,
): Promise<T | Changed | Refusal> {
  const condition = writeCondition(preconditions);
  const writeId = newWriteId();
  const tagged = withWriteId(expression, writeId);
  const send = () =>
    table.plants.send(
      sentOnce(
        new UpdateCommand({
          TableName: table.tableName,
          Key: { [KEY]: id },
          UpdateExpression: tagged.update,
          ConditionExpression: [condition.expression, expression.condition]
            .filter(Boolean)
            .join(' AND '),
          ExpressionAttributeNames: { ...tagged.names, ...condition.names },
          ExpressionAttributeValues: {
            ':one': FIRST_VERSION,
            ...tagged.values,
            ...condition.values,
          },
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
      // Before itemAfter, which reads no item for it: conditionalWrite marks the key and retries.
      if (isEmptyIndexKeyRefusal(error)) throw error;
      // The item after a try that may have been made, or after a refusal; any other failure is
      // thrown there, as the store's error.
      const after = await itemAfter(table, error, id, signal);
      if (after.maybe) {
        maybe = after.maybe;
        const made = madeBy(after.found, writeId, answer);
        if (made) return made;
        if (attempt < WRITE_ATTEMPTS && stillAt(preconditions, after.found)) continue;
        throw new ServiceUnavailable('store unavailable', { cause: maybe.failure });
      }
      old = after.found;
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

/**
 * What a change or delete answers from the item it finds, when that item shows the write made:
 * the item itself, when it bears the write's id (made, and written over by nobody since); for a
 * delete, the tombstone it made, when a plant has been created over it since (its
 * `previousWriteId`: the version before that plant's first). Else `undefined`.
 */
function madeBy<T>(
  found: Record<string, unknown> | undefined,
  writeId: string,
  answer: (item: Record<string, unknown>) => T,
): T | undefined {
  const { previousWriteId, version, deletedAt } = PLANT_ATTRIBUTES;
  if (found?.[PLANT_ATTRIBUTES.writeId] === writeId) return answer(found);
  if (found?.[previousWriteId] === writeId) {
    return answer({ [version]: firstVersionOf(found) - 1, [deletedAt]: found.createdAt });
  }
  return undefined;
}

/**
 * Whether `found` shows that a write conditioned on `preconditions`, which may have been made,
 * was not: it is the plant at the one version `If-Match` names, so no write has been made since
 * that version, and the write's own condition lets at most one of its tries be made. Without such
 * an `If-Match`, a write made and then written over leaves an item that shows nothing of it.
 */
function stillAt(
  preconditions: Preconditions,
  found: Record<string, unknown> | undefined,
): boolean {
  const versions = preconditions.ifMatch?.any ? [] : (preconditions.ifMatch?.versions ?? []);
  return (
    versions.length === 1 &&
    found !== undefined &&
    !isDeleted(found) &&
    versionOf(found) === versions[0]
  );
}
