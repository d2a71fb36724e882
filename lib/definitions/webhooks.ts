/**
 * The webhook's event sources, defined once: the stack's construct configures Lambda's
 * mappings from these, and the local runtime's stream and queue emulate the same settings.
 */
import {
  DELIVERY_BATCH_SIZE,
  DELIVERY_VISIBILITY_SECONDS,
  HORIZON_SECONDS,
  RETRY_DELAYS_SECONDS,
  SAFETY_RECEIVE_COUNT,
} from '../../lambda/webhook/schedule';

/**
 * Lambda's event filter on the plants stream: inserts (creates) and modifies (changes, a delete's
 * tombstone, a create over a tombstone) invoke the fan-out; a REMOVE (DynamoDB's TTL purging a
 * tombstone weeks later, which carries only the key) never does. Changing it from 1.1.0's `INSERT` alone is
 * an in-place update of the mapping (docs/guides/deploying.md, "Upgrading").
 */
export const STREAM_FILTER_PATTERN = { eventName: ['INSERT', 'MODIFY'] } as const;

/** True when a stream record passes `STREAM_FILTER_PATTERN`. */
export function passesStreamFilter(record: { readonly eventName?: string }): boolean {
  return (STREAM_FILTER_PATTERN.eventName as readonly string[]).includes(record.eventName ?? '');
}

/** The stream's mapping to the fan-out. */
export const STREAM_SOURCE = {
  /** Records per invocation. */
  batchSize: 100,
  /**
   * How old a failing record may grow while Lambda retries it (no retry count: a count of
   * quick retries gave records up during a short outage). 12 h rides out a long regional
   * outage of SQS or DynamoDB and still gives up, with the record's position sent to the stream
   * failure queue and the alarms raised, 12 h before the stream's 24 h retention would have
   * dropped it silently. Meanwhile the shard's later records wait (in order), which the
   * iterator-age alarm reports; what is given up, `webhook replay --since` delivers.
   */
  maxRecordAgeSeconds: 12 * 3_600,
  /** The iterator age that raises "deliveries stalled": 15 min behind the stream. */
  stalledAfterSeconds: 15 * 60,
  /**
   * Batches of one shard fanned out at once (Lambda's `ParallelizationFactor`, 1 to 10). One
   * invocation keeps up with a shard's 1,000 writes a second at up to ten subscribers; ten give a
   * shard ten times its rate to catch up after an outage (an hour behind is caught up within
   * minutes) and room for a hundred subscribers. Lambda still hands the records of one item (one
   * plant id) to one batch at a time, in order, so what is kept of per-plant order is all there
   * was: the records of one plant, in the order the table wrote them. Records of different plants
   * in one shard may be fanned out in any order, as they may across shards; the delivery queue
   * orders nothing anyway.
   */
  parallelizationFactor: 10,
} as const;

/**
 * How often Lambda's mapping polls a stream's shard for records: 4 times a second, Lambda's own
 * rate and no setting. A record waits for the next poll, so a burst of writes reaches the
 * fan-out in a few batches; the local stream polls the same way.
 */
export const STREAM_POLL_INTERVAL_MS = 250;

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
  /**
   * Receives before SQS itself dead-letters a message: a safety net only (see
   * `SAFETY_RECEIVE_COUNT`); the deliver function dead-letters after the receiver's last attempt.
   */
  maxReceiveCount: SAFETY_RECEIVE_COUNT,
  /**
   * Deliver invocations at once. A hanging receiver holds its invocation for the 10 s timeout
   * (the other deliveries of its batch are made at once and are not delayed), so this bounds
   * how many such batches can be waiting before other deliveries queue behind them; it also
   * caps what a hanging receiver can cost in duration.
   */
  maxConcurrency: 50,
} as const;

/**
 * A duration as people say it, exact to the second: `50 ms`, `5 s`, `1 min 12 s`, `77 h 35 min`
 * (hours and minutes from an hour on, the seconds dropped there).
 */
export function durationText(seconds: number): string {
  if (seconds < 1) return `${Math.round(seconds * 1000)} ms`;
  if (seconds < 60) return `${Number(seconds.toPrecision(3))} s`;
  const whole = Math.round(seconds);
  const [big, small, units] =
    whole < 3600
      ? [Math.floor(whole / 60), whole % 60, ['min', 's']]
      : [Math.floor(whole / 3600), Math.round((whole % 3600) / 60), ['h', 'min']];
  return small === 0 ? `${big} ${units[0]}` : `${big} ${units[0]} ${small} ${units[1]}`;
}

/**
 * The webhook's retry delays in words, times `scale` (`PLANT_STORE_WEBHOOK_RETRY_SCALE`), a run
 * of equal delays said once: `5 s, 5 min, 30 min, 2 h, 5 h, then 10 h × 7 (77 h 35 min in all)`.
 */
export function retryScheduleText(scale = 1): string {
  const runs: { seconds: number; times: number }[] = [];
  for (const delay of RETRY_DELAYS_SECONDS) {
    const last = runs.at(-1);
    if (last?.seconds === delay) last.times += 1;
    else runs.push({ seconds: delay, times: 1 });
  }
  const said = runs.map(({ seconds, times }, i) => {
    const text = durationText(seconds * scale);
    return times === 1 ? text : `${i > 0 ? 'then ' : ''}${text} × ${times}`;
  });
  return `${said.join(', ')} (${durationText(HORIZON_SECONDS * scale)} in all)`;
}
