/**
 * Plants made from the schema's field list (`PLANT_FIELDS`), for the tests that follow a plant's
 * members through every mapping: a value at each field's limit, a plant with all of them, and
 * the answer schemas of `openapi.json` made strict (no member beyond those they name), so that a
 * mapping that drops a member or adds one fails.
 */
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import { stringifyJson } from '../../lambda/http/json-answer';
import {
  PLANT_FIELD_NAMES,
  PLANT_FIELDS,
  type Plant,
  type PlantField,
  type PlantFieldName,
} from '../../lambda/plants/schemas';
import { loadDocument } from './openapi-answers';

/**
 * The characters a value at the limit is made of: a four-byte one (one code point, two UTF-16
 * units: the largest in UTF-8), the two JSON must escape, a control character (escaped as
 * `\u0001`), a two-byte one. A mapping that counts, escapes or decodes wrongly changes them.
 */
const CHARACTERS = ['🌿', '"', '\\', '\u0001', 'é'];

/**
 * A value of `field` at its limit, `shift` varying it: a string of exactly its limit of
 * characters (code points); a number with every decimal its entry allows, just below its
 * maximum (`19.99`-like values, which a float64 holds only approximately); a boolean, `true`
 * then `false`.
 */
export function atLimit(field: PlantFieldName, shift = 0): string | number | boolean {
  const entry = PLANT_FIELDS[field] as PlantField;
  switch (entry.type) {
    case 'string':
      return Array.from(
        { length: entry.maxLength },
        (_, i) => CHARACTERS[(i + shift) % CHARACTERS.length],
      ).join('');
    case 'number': {
      // In units of the last decimal, exactly: the maximum's, less one or more units.
      const units = Math.round(entry.maximum * 10 ** entry.decimals) - 1 - shift * 7;
      return Number(`${units}e-${entry.decimals}`);
    }
    case 'boolean':
      return shift % 2 === 0;
  }
}

/** A plant with every field of the schema, each at its limit. */
export function plantAtLimits(shift = 0): Plant {
  return Object.fromEntries(
    PLANT_FIELD_NAMES.map((field) => [field, atLimit(field, shift)]),
  ) as Plant;
}

/** A plant with only the fields a create requires, each at its limit. */
export function requiredOnly(): Plant {
  return Object.fromEntries(
    PLANT_FIELD_NAMES.filter((field) => PLANT_FIELDS[field].required).map((field) => [
      field,
      atLimit(field),
    ]),
  ) as Plant;
}

/**
 * For each field, `plant` with only that field different (another value at the limit, or, for
 * an optional one, also absent): each must be a 409 after `plant`.
 */
export function oneFieldDiffers(plant: Plant): [string, Plant][] {
  return PLANT_FIELD_NAMES.flatMap((field) => {
    const other: [string, Plant][] = [
      [`another ${field}`, { ...plant, [field]: atLimit(field, 1) }],
    ];
    if (!PLANT_FIELDS[field].required && plant[field] !== undefined) {
      const without: Record<string, unknown> = { ...plant };
      delete without[field];
      other.push([`no ${field}`, without as Plant]);
    }
    return other;
  });
}

/** The schemas of `openapi.json` that a plant's answers and webhook body are checked against. */
export type AnswerSchema = 'Plant' | 'StoredPlant' | 'PlantPage' | 'NewPlant';

/** Every object schema of the document, with `additionalProperties: false` (recursively). */
function strict(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(strict);
  if (typeof value !== 'object' || value === null) return value;
  const copy = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, strict(v)]));
  if ('properties' in copy) copy.additionalProperties = false;
  return copy;
}

let validators: Map<AnswerSchema, ValidateFunction> | undefined;

/**
 * Throws, saying what differs, when `value` (ids as bigints) is not exactly an instance of the
 * document's schema `name` with no member beyond those it names.
 */
export function expectStrictly(name: AnswerSchema, value: unknown): void {
  if (!validators) {
    const document = loadDocument() as { components: { schemas: Record<string, unknown> } };
    // `multipleOf: 0.01` judged on the decimal (19.99 / 0.01 is 1998.9999999999998 in a float64).
    const ajv = new Ajv2020({ allErrors: true, strict: false, multipleOfPrecision: 9 });
    ajv.addFormat('int64', { type: 'number', validate: Number.isInteger });
    ajv.addFormat('int32', { type: 'number', validate: Number.isInteger });
    ajv.addSchema({ $id: 'doc', components: strict(document.components) });
    validators = new Map(
      (['Plant', 'StoredPlant', 'PlantPage', 'NewPlant'] as const).map((schema) => [
        schema,
        ajv.compile({ $ref: `doc#/components/schemas/${schema}` }),
      ]),
    );
  }
  const validate = validators.get(name)!;
  // A copy in plain JSON: the int64 format only checks that the id is an integer.
  if (!validate(JSON.parse(stringifyJson(value)))) {
    throw new Error(`not a strict ${name}: ${JSON.stringify(validate.errors)}`);
  }
}
