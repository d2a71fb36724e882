/**
 * JSON in and out without rounding ids. `JSON.parse` turns 9007199254740993 into
 * 9007199254740992; here every member named `id` becomes a `bigint` read from its digits, and
 * must be an int64. One parser on every runtime (lossless-json, bundled into dist: no runtime
 * dependency), so that an answer reads the same on Node 20, Node 24 and in a browser — the
 * platform's source text access (`JSON.parse`'s `context.source`) exists on Node 21+ only.
 */
import { isLosslessNumber, parse as parseLossless } from 'lossless-json';
import { INT64_MAX, INT64_MIN } from './ids.js';

const INTEGER = /^-?(?:0|[1-9]\d*)$/;

/** Why an answer could not be read; `PlantStore` turns it into a `PlantStoreError`. */
export class MalformedJson extends Error {}

const revive = (key: string, value: unknown): unknown => {
  if (!isLosslessNumber(value)) return value;
  const digits = value.toString();
  // Every other number as JSON.parse reads it: the nearest float64.
  if (key !== 'id') return Number(digits);
  const id = INTEGER.test(digits) ? BigInt(digits) : undefined;
  if (id === undefined || id < INT64_MIN || id > INT64_MAX) {
    throw new MalformedJson(`id ${digits.slice(0, 40)} is not an int64`);
  }
  return id;
};

/**
 * Parses an answer of the API: members named `id` as `bigint` (an int64, or a `MalformedJson`),
 * every other number as `number`; text that is not JSON is a `MalformedJson` too.
 */
export function parseExact(text: string): unknown {
  try {
    return parseLossless(text, revive);
  } catch (error) {
    if (error instanceof MalformedJson) throw error;
    throw new MalformedJson(`not JSON: ${(error as Error).message}`, { cause: error });
  }
}

/** `{"id":<every digit>, ...rest}`: `JSON.stringify` cannot write a `bigint`. */
export function stringifyWithId(id: bigint, rest: Record<string, unknown>): string {
  const members = JSON.stringify(rest).slice(1);
  return `{"id":${id}${members === '}' ? '' : ','}${members}`;
}
