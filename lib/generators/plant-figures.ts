/**
 * How big a plant can be and what one request costs in DynamoDB units, computed from the
 * schema's limits (`PLANT_FIELDS`, the int64 id, `PAGE_LIMIT`) and the table's attributes, by
 * DynamoDB's rules ("Item sizes and formats", "Read and write operations"): an item is the
 * UTF-8 bytes of its attribute names plus its values, a string's value its UTF-8 bytes, a
 * number's 1 byte per two significant digits plus 1; a write costs 1 unit per started 1,024
 * bytes, a strongly consistent read 1 per started 4,096 bytes, a `Scan` page its items summed
 * then rounded up. The docs show them through the `plant-size` generated block
 * (lib/generators/docs/plant-size.ts), which `npm run generate -- --check` keeps current.
 */
import { stringifyJson } from '../../lambda/http/json-answer';
import { encodeCursor } from '../../lambda/plants/cursor';
import {
  INT64_MAX,
  INT64_MIN,
  PAGE_LIMIT,
  PLANT_FIELD_NAMES,
  PLANT_FIELDS,
  type PlantField,
} from '../../lambda/plants/schemas';
import { PLANTS_TABLE } from '../../lambda/aws/tables';
import { newWriteId, PLANT_ATTRIBUTES } from '../../lambda/plants/item';
import { generateToken } from '../../lambda/tokens/token';

/** The most UTF-8 bytes one character (a code point) takes. */
export const MAX_UTF8_BYTES_PER_CHARACTER = 4;
/** Bytes per write request unit, and per strongly consistent read request unit. */
export const WRITE_UNIT_BYTES = 1024;
export const READ_UNIT_BYTES = 4096;
/** What DynamoDB adds to each item's size for storage (indexing). */
export const STORAGE_OVERHEAD_BYTES = 100;

/** One attribute of the largest item: its name's bytes, its value's, and how the value's are counted. */
export interface AttributeSize {
  readonly attribute: string;
  readonly nameBytes: number;
  readonly valueBytes: number;
  /** The value's bytes in words, e.g. `1,000 × 4` or `19 digits: 10 + 1`. */
  readonly rule: string;
  readonly bytes: number;
}

/** The figures the docs show. */
export interface PlantFigures {
  readonly attributes: readonly AttributeSize[];
  /** The largest item a plant can be (created over a tombstone, then changed), in bytes. */
  readonly itemBytes: number;
  /** Write units of a write of it: a change, its delete, a refused put that finds it. */
  readonly writeUnits: number;
  /** Read units of a strongly consistent `GetItem` of it. */
  readonly readUnits: number;
  /** Plants on the largest page, the bytes its `Scan` reads and the read units it costs. */
  readonly pagePlants: number;
  readonly pageBytes: number;
  readonly pageReadUnits: number;
  /** The JSON answer of that page: its text of 4-byte characters, and of control characters (`\u0001`, six bytes each). */
  readonly pageAnswerBytes: number;
  readonly pageAnswerEscapedBytes: number;
}

const utf8 = (text: string) => Buffer.byteLength(text, 'utf8');
const digitsOf = (n: bigint) => (n < 0n ? -n : n).toString().length;

/** A DynamoDB number's value bytes: 1 per two significant digits, plus 1. */
function numberRule(digits: number): { valueBytes: number; rule: string } {
  const pairs = Math.ceil(digits / 2);
  return { valueBytes: pairs + 1, rule: `${digits} digits: ${pairs} + 1` };
}

function attribute(attributeName: string, value: { valueBytes: number; rule: string }) {
  const nameBytes = utf8(attributeName);
  return { attribute: attributeName, nameBytes, ...value, bytes: nameBytes + value.valueBytes };
}

/** The value of `field` whose answer text is longest: `character` repeated, for a string. */
function largestValue(field: PlantField, character: string): unknown {
  switch (field.type) {
    case 'string':
      return character.repeat(field.maxLength);
    case 'number': {
      // As many digits as the largest bound has, every decimal, and a sign when one is allowed.
      const digits = digitsOf(BigInt(Math.max(Math.abs(field.minimum), Math.abs(field.maximum))));
      const decimals = field.decimals ? `.${'9'.repeat(field.decimals)}` : '';
      return Number(`${field.minimum < 0 ? '-' : ''}${'9'.repeat(digits)}${decimals}`);
    }
    case 'boolean':
      return false;
  }
}

/** The most bytes a field's value takes in an item, by DynamoDB's rules. */
function largestValueSize(field: PlantField): { valueBytes: number; rule: string } {
  switch (field.type) {
    case 'string':
      return {
        valueBytes: field.maxLength * MAX_UTF8_BYTES_PER_CHARACTER,
        rule: `${format(field.maxLength)} × ${MAX_UTF8_BYTES_PER_CHARACTER}`,
      };
    case 'number': {
      const largest = BigInt(Math.max(Math.abs(field.minimum), Math.abs(field.maximum)));
      // Its integer digits and every decimal: significant digits at most.
      return numberRule(digitsOf(largest) + field.decimals);
    }
    case 'boolean':
      return { valueBytes: 1, rule: '1 (a boolean)' };
  }
}

/** Computes every figure from the limits. */
export function plantFigures(): PlantFigures {
  const idDigits = Math.max(digitsOf(INT64_MIN), digitsOf(INT64_MAX));
  // A version is a JavaScript number: at most the largest safe integer.
  const versionDigits = digitsOf(BigInt(Number.MAX_SAFE_INTEGER));
  const at = new Date(0).toISOString();
  const by = generateToken().tokenId;
  const time = { valueBytes: utf8(at), rule: `${utf8(at)} (ISO-8601 UTC)` };
  const tokenId = { valueBytes: utf8(by), rule: `${utf8(by)} (a tokenId)` };
  const writeId = newWriteId();
  const writeIdSize = { valueBytes: utf8(writeId), rule: `${utf8(writeId)} (a write's id)` };
  const attributes: AttributeSize[] = [
    attribute(PLANTS_TABLE.partitionKey.name, numberRule(idDigits)),
    ...PLANT_FIELD_NAMES.map((field) => attribute(field, largestValueSize(PLANT_FIELDS[field]))),
    attribute('createdAt', time),
    attribute('createdBy', tokenId),
    attribute(PLANT_ATTRIBUTES.version, numberRule(versionDigits)),
    attribute(PLANT_ATTRIBUTES.firstVersion, numberRule(versionDigits)),
    attribute(PLANT_ATTRIBUTES.updatedAt, time),
    attribute(PLANT_ATTRIBUTES.updatedBy, tokenId),
    attribute(PLANT_ATTRIBUTES.writeId, writeIdSize),
    attribute(PLANT_ATTRIBUTES.previousWriteId, writeIdSize),
    attribute(PLANT_ATTRIBUTES.createId, writeIdSize),
    attribute(PLANT_ATTRIBUTES.previousCreateId, writeIdSize),
  ];
  const itemBytes = attributes.reduce((sum, a) => sum + a.bytes, 0);
  const pagePlants = PAGE_LIMIT.max;
  const pageBytes = pagePlants * itemBytes;
  const page = (character: string) =>
    utf8(
      stringifyJson({
        plants: Array.from({ length: pagePlants }, () => ({
          id: INT64_MIN,
          ...Object.fromEntries(
            PLANT_FIELD_NAMES.map((f) => [f, largestValue(PLANT_FIELDS[f], character)]),
          ),
        })),
        next: encodeCursor(INT64_MIN),
      }),
    );
  return {
    attributes,
    itemBytes,
    writeUnits: Math.ceil(itemBytes / WRITE_UNIT_BYTES),
    readUnits: Math.ceil(itemBytes / READ_UNIT_BYTES),
    pagePlants,
    pageBytes,
    pageReadUnits: Math.ceil(pageBytes / READ_UNIT_BYTES),
    pageAnswerBytes: page('🌿'),
    pageAnswerEscapedBytes: page('\u0001'),
  };
}

/** A count as the docs write it: `4,482`. */
export function format(n: number): string {
  return n.toLocaleString('en-US');
}
