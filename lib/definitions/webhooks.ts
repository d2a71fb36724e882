/**
 * The newPlant webhook's event sources, defined once: the stack's construct configures Lambda's
 * mappings from these, and the local runtime's stream and queue emulate the same settings.
 */
import {
  DELIVERY_BATCH_SIZE,
  DELIVERY_VISIBILITY_SECONDS,
  MAX_ATTEMPTS,
} from '../../lambda/shared/webhook/schedule';

/** Lambda's event filter on the plants stream: only inserts (new plants) invoke the fan-out. */
export const STREAM_FILTER_PATTERN = { eventName: ['INSERT'] } as const;

/** True when a stream record passes `STREAM_FILTER_PATTERN`. */
export function passesStreamFilter(record: { readonly eventName?: string }): boolean {
  return (STREAM_FILTER_PATTERN.eventName as readonly string[]).includes(record.eventName ?? '');
}

/** The stream's mapping to the fan-out. */
export const STREAM_SOURCE = {
  /** Records per invocation. */
  batchSize: 100,
  /** Retries of a failing record before it is given up (and its metadata sent to a queue). */
  retryAttempts: 10,
} as const;

/** The delivery queue and its mapping to the deliver function. */
export const DELIVERY_SOURCE = {
  batchSize: DELIVERY_BATCH_SIZE,
  /**
   * How long the mapping gathers messages before it invokes with fewer than a batch (Lambda
   * requires at least 1 s for batches over 10). A second of latency buys batches that keep a
   * hanging receiver's deliveries together: at 50 plants a second they take a few invocations,
   * where batches of whatever is there at once took one each and could fill `maxConcurrency`.
   */
  maxBatchingWindowSeconds: 1,
  visibilityTimeoutSeconds: DELIVERY_VISIBILITY_SECONDS,
  /** Receives before a message is dead-lettered: one per attempt of the schedule. */
  maxReceiveCount: MAX_ATTEMPTS,
  /**
   * Deliver invocations at once. A hanging receiver holds its invocation for the 10 s timeout
   * (the other deliveries of its batch are made at once and are not delayed), so this bounds
   * how many such batches can be waiting before other deliveries queue behind them; it also
   * caps what a hanging receiver can cost in duration.
   */
  maxConcurrency: 50,
} as const;
