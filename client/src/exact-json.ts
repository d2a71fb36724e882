/**
 * JSON in and out without rounding int64s. `JSON.parse` turns 9007199254740993 into
 * 9007199254740992; here every number the schema says is an int64 (`format: int64` in
 * openapi.json, wherever it is: a member, an array's items, nested) becomes a `bigint` read from
 * its digits, and must be an int64; every other number is a `number`, whatever its member's
 * name. Where each answer holds one is generated from openapi.json (`INT64_ANSWERS` in
 * schema.ts). One parser on every runtime (lossless-json, bundled into dist: no runtime
 * dependency), so that an answer reads the same on Node 20, Node 24 and in a browser — the
 * platform's source text access (`JSON.parse`'s `context.source`) exists on Node 21+ only.
 */
import { isLosslessNumber, parse as parseLossless } from 'lossless-json';
import { INT64_MAX, INT64_MIN } from './ids.js';
import { INT64_WEBHOOKS } from './schema.js';

/**
 * Where a JSON value holds an int64: itself (`int64`), the items of an array, named members, or
 * any other member (`others`, JSON Schema's `additionalProperties`).
 */
export interface Int64Locations {
  readonly int64?: true;
  readonly items?: Int64Locations;
  readonly members?: { readonly [name: string]: Int64Locations };
  readonly others?: Int64Locations;
}

/** The int64 locations of each answer: path → method → status (or `default`) → where. */
export type Int64Answers = {
  readonly [path: string]: {
    readonly [method: string]: { readonly [status: string]: Int64Locations };
  };
};

const INTEGER = /^-?(?:0|[1-9]\d*)$/;

/** Why an answer could not be read; `PlantStore` turns it into a `PlantStoreError`. */
export class MalformedJson extends Error {}

/** `value` as lossless-json parsed it, its numbers read as `at` says. */
function exact(value: unknown, at: Int64Locations | undefined, path: string): unknown {
  if (isLosslessNumber(value)) {
    const digits = value.toString();
    // Every other number as JSON.parse reads it: the nearest float64.
    if (!at?.int64) return Number(digits);
    const int = INTEGER.test(digits) ? BigInt(digits) : undefined;
    if (int === undefined || int < INT64_MIN || int > INT64_MAX) {
      throw new MalformedJson(`${path || 'the answer'} ${digits.slice(0, 40)} is not an int64`);
    }
    return int;
  }
  if (Array.isArray(value)) {
    return value.map((item, index) => exact(item, at?.items, `${path}[${index}]`));
  }
  if (typeof value === 'object' && value !== null) {
    const object = value as Record<string, unknown>;
    for (const [name, member] of Object.entries(object)) {
      const named = at?.members && Object.hasOwn(at.members, name) ? at.members[name] : undefined;
      object[name] = exact(member, named ?? at?.others, path ? `${path}.${name}` : name);
    }
  }
  return value;
}

/**
 * Parses JSON text: a number where `at` places an int64 as a `bigint` (an int64, or a
 * `MalformedJson`), every other number as a `number`; text that is not JSON is a
 * `MalformedJson` too. Without `at`, the int64s of a webhook body (any event's): pass a
 * delivery's body to read its plant exactly.
 */
export function parseExact(text: string, at: Int64Locations | undefined = INT64_WEBHOOKS): unknown {
  let value: unknown;
  try {
    value = parseLossless(text);
  } catch (error) {
    throw new MalformedJson(`not JSON: ${(error as Error).message}`, { cause: error });
  }
  return exact(value, at, '');
}

/** `{"id":<every digit>, ...rest}`: `JSON.stringify` cannot write a `bigint`. */
export function stringifyWithId(id: bigint, rest: Record<string, unknown>): string {
  const members = JSON.stringify(rest).slice(1);
  return `{"id":${id}${members === '}' ? '' : ','}${members}`;
}
