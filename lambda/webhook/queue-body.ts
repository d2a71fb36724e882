/**
 * What SQS takes as a message body, and the one way every queue body of ours is written.
 *
 * SQS refuses a body with a character outside `#x9 | #xA | #xD | #x20–#xD7FF | #xE000–#xFFFD |
 * #x10000–#x10FFFF` (`InvalidMessageContents`). `JSON.stringify` escapes control characters and
 * lone surrogates but leaves U+FFFE and U+FFFF as they are, and a plant's name may hold them: so
 * every body is JSON with anything outside that set written as a `\uXXXX` escape, which
 * `JSON.parse` turns back into the same string.
 */

/** A character SQS refuses in a message body (one code point at a time). */
export const OUTSIDE_SQS_CHARACTERS = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;

const OUTSIDE_SQS_CHARACTERS_ALL = new RegExp(OUTSIDE_SQS_CHARACTERS.source, 'gu');

/**
 * The largest body, and the largest SendMessageBatch in all, in bytes: 256 KiB, a queue's
 * `MaximumMessageSize` by default before SQS allowed 1 MiB, and what the local SQS takes. Our
 * queues keep their default; a delivery is a few KiB.
 */
export const SQS_MESSAGE_LIMIT_BYTES = 262_144;

/** `value` as JSON that SQS takes: anything outside its characters escaped. */
export function queueBody(value: unknown): string {
  return JSON.stringify(value).replace(
    OUTSIDE_SQS_CHARACTERS_ALL,
    (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** The size SQS counts of a body (UTF-8 bytes). */
export function bodyBytes(body: string): number {
  return Buffer.byteLength(body);
}

/**
 * Room a new delivery leaves under the limit for what the deliverer adds to its copies (when it
 * was stored, the attempt, the wait, the first attempt's time: about 110 bytes at their largest).
 */
export const DELIVERY_HEADROOM_BYTES = 512;

/**
 * True when a new delivery whose body is `bytes` long (`bodyBytes`) can be queued, and its copies
 * after failed attempts too. One that cannot (only a plant stored before the field limits is
 * that large) is never sent: the fan-out sets its record aside, a replay counts it.
 */
export function fitsAsDelivery(bytes: number): boolean {
  return bytes <= SQS_MESSAGE_LIMIT_BYTES - DELIVERY_HEADROOM_BYTES;
}

/** SendMessageBatch takes at most ten entries. */
export const BATCH_ENTRIES = 10;

/**
 * `indexes` in runs, in order, each one SendMessageBatch: at most `BATCH_ENTRIES` entries and
 * `SQS_MESSAGE_LIMIT_BYTES` in all (`sizes[index]` is an entry's body's size). Throws on an entry
 * larger than SQS takes: callers leave those out first.
 */
export function sqsBatches(indexes: readonly number[], sizes: readonly number[]): number[][] {
  const out: number[][] = [];
  let batch: number[] = [];
  let bytes = 0;
  for (const index of indexes) {
    const size = sizes[index]!;
    if (size > SQS_MESSAGE_LIMIT_BYTES) {
      throw new Error(`a message of ${size} bytes, over the ${SQS_MESSAGE_LIMIT_BYTES} SQS takes`);
    }
    if (batch.length === BATCH_ENTRIES || bytes + size > SQS_MESSAGE_LIMIT_BYTES) {
      out.push(batch);
      batch = [];
      bytes = 0;
    }
    batch.push(index);
    bytes += size;
  }
  if (batch.length > 0) out.push(batch);
  return out;
}
