/** An id as the client accepts it: a `bigint`, a decimal string, or a `number` that is a safe integer. */
export type PlantId = bigint | string | number;

export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;
const DECIMAL = /^-?(?:0|[1-9]\d{0,18})$/;

/**
 * The id as a `bigint`, or a `TypeError` before anything is sent: a `number` beyond 2^53 (or
 * not an integer) may already be another plant's id, rounded, so it is never accepted; a string
 * must be the canonical decimal spelling; and every id must be an int64.
 */
export function toId(id: PlantId): bigint {
  let value: bigint;
  if (typeof id === 'bigint') {
    value = id;
  } else if (typeof id === 'number') {
    if (!Number.isInteger(id)) throw new TypeError(`id ${id} is not an integer`);
    if (!Number.isSafeInteger(id)) {
      throw new TypeError(
        `id ${id} is beyond 2^53 as a number, so it may already be rounded: pass a bigint or a decimal string`,
      );
    }
    value = BigInt(id);
  } else if (typeof id === 'string' && DECIMAL.test(id) && id !== '-0') {
    value = BigInt(id);
  } else {
    throw new TypeError(
      typeof id === 'string'
        ? `id ${JSON.stringify(id)} is not an integer's canonical decimal spelling (no sign +, leading zero, space, fraction or exponent; 0 not -0)`
        : `id ${JSON.stringify(String(id))} is not an integer: pass a bigint, a decimal string or a safe integer`,
    );
  }
  if (value < INT64_MIN || value > INT64_MAX) {
    throw new TypeError(`id ${value} is outside the int64 range ${INT64_MIN} to ${INT64_MAX}`);
  }
  return value;
}
