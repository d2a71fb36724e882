/**
 * DynamoDB's refusal to read an index that is still being built: after an upgrade adds an index
 * to a table that holds items, the index backfills (minutes to hours, by the table's size) and a
 * Query of it fails with a ValidationException until it is ACTIVE. The answer is 503: the list
 * will come, a partial one never does.
 */
import { ServiceUnavailable } from '../http/answers';

/** The words of DynamoDB's ValidationException for a Query of a backfilling index. */
export const BACKFILLING_MESSAGE = 'Cannot read from backfilling global secondary index';

/**
 * Seconds a client should wait when the index is building: a backfill takes minutes, so a
 * client retrying each second would only spend its retries (ours waits at most 20 s).
 */
export const INDEX_BUILDING_RETRY_AFTER_SECONDS = 30;

/** The 503 for `error` when it is DynamoDB refusing to read a backfilling index, else `undefined`. */
export function indexBuildingError(error: unknown): ServiceUnavailable | undefined {
  if (!(error instanceof Error) || error.name !== 'ValidationException') return undefined;
  if (!error.message.includes(BACKFILLING_MESSAGE)) return undefined;
  return new ServiceUnavailable('the index is still being built', {
    cause: error,
    retryAfterSeconds: INDEX_BUILDING_RETRY_AFTER_SECONDS,
  });
}
