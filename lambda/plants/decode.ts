/**
 * A stored plant item read back: the id (a DynamoDB number, as `NumberValue` with its exact
 * digits, never a float64) and the schema's members checked, its version, and whether a delete
 * marked it. The plants table's methods (`store/`) and the webhook's images read items here.
 */
import { unmarshall } from '@aws-sdk/util-dynamodb';
import * as v from 'valibot';
import { PLANTS_TABLE } from '../aws/tables';
import { PLANT_ATTRIBUTES, readMembers } from './item';
import { describeIssues, StoredPlant } from './schemas';
import { FIRST_VERSION } from './versions';

const KEY = PLANTS_TABLE.partitionKey.name;
const { version: VERSION, firstVersion: FIRST, deletedAt: DELETED_AT } = PLANT_ATTRIBUTES;

/** A stored plant and its version. */
export interface Versioned {
  readonly plant: StoredPlant;
  readonly version: number;
}

/**
 * A stored item (as the document client reads it, numbers as `NumberValue`) as a plant: its id
 * and the schema's members, checked by `StoredPlant`; any other attribute (createdAt,
 * createdBy) stays in the table. An item that is not one is a bug: it throws, saying why.
 */
export function decodePlant(item: Record<string, unknown>): StoredPlant {
  const key = item[KEY];
  // A NumberValue's text is its exact digits; anything else is left for the schema to refuse.
  const id = /^-?\d+$/.test(String(key)) ? decodeId(key) : key;
  const result = v.safeParse(StoredPlant, { ...readMembers(item), id });
  if (!result.success) {
    throw new Error(
      `the item ${String(key)} is not a stored plant: ${describeIssues(result.issues)}`,
    );
  }
  return result.output;
}

/** A stored item as a plant and its version (absent: the first, as every item before versions). */
export function decodeVersioned(item: Record<string, unknown>): Versioned {
  return { plant: decodePlant(item), version: versionOf(item) };
}

/** An item's version: its `version` attribute, or the first when it has none. */
export function versionOf(item: Record<string, unknown>): number {
  const version = item[VERSION];
  return version === undefined ? FIRST_VERSION : Number(String(version));
}

/**
 * The version an item's plant was created at: 1, or, for a plant created again over its
 * tombstone, one more than the tombstone's (its `firstVersion`).
 */
export function firstVersionOf(item: Record<string, unknown>): number {
  const version = item[FIRST];
  return version === undefined ? FIRST_VERSION : Number(String(version));
}

/** Whether an item is marked deleted: a deleted plant's tombstone, absent for every reader. */
export function isDeleted(item: Record<string, unknown>): boolean {
  return item[DELETED_AT] !== undefined;
}

/** A stored item in DynamoDB's own JSON (a stream record's image, a refused put's old item) as a plant. */
export function decodePlantImage(image: Record<string, unknown>): StoredPlant {
  return decodePlant(unmarshall(image as Parameters<typeof unmarshall>[0], { wrapNumbers: true }));
}

/**
 * A stored item's id, version, the version it was created at, and when it was created, last
 * changed and marked deleted.
 */
export interface ImageState {
  readonly id: bigint;
  readonly version: number;
  readonly firstVersion: number;
  readonly createdAt?: string;
  readonly updatedAt?: string;
  readonly deletedAt?: string;
}

/**
 * A stored item in DynamoDB's own JSON (a stream image, a raw Scan item) with its version and
 * times. A plant's item must be a stored plant (it throws when not); a tombstone needs only its
 * id, as a delete strips it of the plant's members.
 */
export function decodeImageState(image: Record<string, unknown>): ImageState {
  const item = unmarshall(image as Parameters<typeof unmarshall>[0], { wrapNumbers: true });
  const text = (name: string) => (typeof item[name] === 'string' ? { [name]: item[name] } : {});
  return {
    id: isDeleted(item) ? decodeId(item[KEY]) : decodePlant(item).id,
    version: versionOf(item),
    firstVersion: firstVersionOf(item),
    ...text('createdAt'),
    ...text(PLANT_ATTRIBUTES.updatedAt),
    ...text(DELETED_AT),
  };
}

/** A DynamoDB number (a `NumberValue` with its exact digits) as a `bigint`. */
export function decodeId(value: unknown): bigint {
  // NumberValue's toString is its exact decimal text; BigInt refuses anything but an integer.
  return BigInt(String(value));
}
