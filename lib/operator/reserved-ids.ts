/**
 * The plant ids the operator's checks may create, one definition for all of them: each check
 * draws from its own range, far from the ids people type, and touches no plant outside it.
 * `npm run smoke` takes 8×10^18 up to 9×10^18; `npm run verify` the two ends of int64 (so that
 * its cases at the very edges stay in its range): 9×10^18 up to 2^63 - 1, and -2^63 up to
 * -9×10^18.
 */
import { randomBytes } from 'node:crypto';

/** Ids from `min` up to, not including, `max`. */
export interface IdRange {
  readonly min: bigint;
  readonly max: bigint;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** The ranges each check owns; a plant id belongs to at most one of them. */
export const RESERVED_ID_RANGES = {
  smoke: [{ min: 8_000_000_000_000_000_000n, max: 9_000_000_000_000_000_000n }],
  verify: [
    { min: 9_000_000_000_000_000_000n, max: INT64_MAX + 1n },
    { min: INT64_MIN, max: -9_000_000_000_000_000_000n + 1n },
  ],
} as const satisfies Record<string, readonly IdRange[]>;

/** Which check owns `id`, or `undefined` when it is nobody's but its owner's. */
export function reservedBy(id: bigint): keyof typeof RESERVED_ID_RANGES | undefined {
  for (const [check, ranges] of Object.entries(RESERVED_ID_RANGES)) {
    if (ranges.some((range) => id >= range.min && id < range.max)) {
      return check as keyof typeof RESERVED_ID_RANGES;
    }
  }
  return undefined;
}

/** A random id in `range`. */
export function randomIdIn(range: IdRange): bigint {
  return range.min + (randomBytes(8).readBigUInt64BE() % (range.max - range.min));
}
