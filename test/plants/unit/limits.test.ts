/**
 * The length limits of a new plant's `name` (1000) and `tag` (100), counted in Unicode code
 * points: the body parsed as the function parses it and checked with `NewPlant`, and the same
 * strings checked by a JSON Schema validator against the `maxLength` of `openapi.json`, so the
 * function and the document agree at every boundary, in every width of character.
 */
import Ajv2020 from 'ajv/dist/2020';
import { readFileSync } from 'node:fs';
import * as v from 'valibot';
import { parseJson } from '../../../lambda/http/json';
import {
  NewPlant,
  TEXT_FIELD_NAMES,
  PLANT_TEXT_LIMITS,
  describeIssues,
} from '../../../lambda/plants/schemas';
import { OPENAPI_FILE } from '../../../lib/generators/openapi/document';

/** Characters by their width: UTF-8 bytes, and UTF-16 units in a JavaScript string. */
const ALPHABETS = {
  'ASCII (1 byte, 1 unit)': ['a'],
  'two-byte (2 bytes, 1 unit)': ['é', 'ß', 'Ж'],
  'three-byte (3 bytes, 1 unit)': ['中', '€'],
  'four-byte (4 bytes, 2 units)': ['🌿', '😀', '𝄞'],
  mixed: ['a', 'é', '中', '🌿', 'Ж', '😀'],
  // Two code points that draw as one é: a character here is a code point, not a grapheme.
  'combining (e + U+0301)': ['e', '\u0301'],
} as const;

/** A string of exactly `count` code points drawn in turn from `alphabet`. */
function text(alphabet: readonly string[], count: number): string {
  return Array.from({ length: count }, (_, i) => alphabet[i % alphabet.length]).join('');
}

/** What the function answers for a body: `ok`, or the 400 message. */
function check(body: string): string {
  const result = v.safeParse(NewPlant, parseJson(body));
  return result.success ? 'ok' : describeIssues(result.issues);
}

const body = (fields: Record<string, unknown>) => JSON.stringify({ id: 1, ...fields });

const CASES = Object.entries(ALPHABETS).flatMap(([alphabet, chars]) =>
  TEXT_FIELD_NAMES.flatMap((field) => {
    const limit = PLANT_TEXT_LIMITS[field];
    return [limit - 1, limit, limit + 1].map((count) => ({
      alphabet,
      field,
      count,
      value: text(chars, count),
      expected: count > limit ? `${field}: must be at most ${limit} characters` : 'ok',
    }));
  }),
);

describe.each(CASES)(
  '$field of $count $alphabet characters',
  ({ field, count, value, expected }) => {
    it(`is ${expected}`, () => {
      expect([...value]).toHaveLength(count);
      expect(check(body({ name: 'Fern', [field]: value }))).toBe(expected);
    });
  },
);

it('the astral cases are the ones a UTF-16 count gets wrong', () => {
  const value = text(ALPHABETS['four-byte (4 bytes, 2 units)'], 1000);
  expect(value.length).toBe(2000);
  expect(check(body({ name: value }))).toBe('ok');
  expect(check(body({ name: 'Fern', tag: text(['🌿'], 100) }))).toBe('ok');
});

it('counts a character written as a JSON escape (a surrogate pair) once', () => {
  const escaped = '\\ud83c\\udf3f'.repeat(1000);
  expect(check(`{"id":1,"name":"${escaped}"}`)).toBe('ok');
  expect(check(`{"id":1,"name":"${escaped}a"}`)).toBe('name: must be at most 1000 characters');
});

describe('joins the limits with the other field errors, in field order', () => {
  const long = { name: 'a'.repeat(1001), tag: '🌿'.repeat(101) };
  it.each([
    [
      'both too long',
      body(long),
      'name: must be at most 1000 characters; tag: must be at most 100 characters',
    ],
    [
      'and a bad id',
      JSON.stringify(long).replace('{', '{"id":1.5,'),
      'id: must be an integer from -9223372036854775808 to 9223372036854775807; name: must be at most 1000 characters; tag: must be at most 100 characters',
    ],
    [
      'and no id',
      JSON.stringify({ name: long.name }),
      'id: required; name: must be at most 1000 characters',
    ],
    [
      'a long name and a null tag',
      body({ name: long.name, tag: null }),
      'name: must be at most 1000 characters; tag: must be a string',
    ],
    [
      'a non-string name and a long tag',
      body({ name: 7, tag: long.tag }),
      'name: must be a string; tag: must be at most 100 characters',
    ],
  ])('%s', (_, json, expected) => {
    expect(check(json)).toBe(expected);
  });
});

describe('openapi.json', () => {
  // int64 bounds become the nearest float64s here; only the strings are checked.
  const schemas = JSON.parse(readFileSync(OPENAPI_FILE, 'utf8')).components.schemas;

  it('carries the limits as maxLength on what a create takes and answers', () => {
    for (const name of ['NewPlant', 'Plant']) {
      expect(schemas[name].properties.name.maxLength).toBe(1000);
      expect(schemas[name].properties.tag.maxLength).toBe(100);
      for (const field of TEXT_FIELD_NAMES) {
        expect(schemas[name].properties[field].maxLength).toBe(PLANT_TEXT_LIMITS[field]);
      }
    }
  });

  it('bounds nothing a read answers: a plant stored before the limits may be longer', () => {
    for (const field of TEXT_FIELD_NAMES) {
      expect(schemas.StoredPlant.properties[field]).not.toHaveProperty('maxLength');
    }
  });

  it('agrees with the function on every case, as a JSON Schema validator counts', () => {
    const ajv = new Ajv2020({ strict: true });
    const validate = Object.fromEntries(
      TEXT_FIELD_NAMES.map((field) => [field, ajv.compile(schemas.NewPlant.properties[field])]),
    );
    const disagreements = CASES.filter(
      ({ field, value, expected }) => validate[field]!(value) !== (expected === 'ok'),
    ).map(({ field, count, alphabet }) => `${field} ${count} ${alphabet}`);
    expect(disagreements).toEqual([]);
  });
});
