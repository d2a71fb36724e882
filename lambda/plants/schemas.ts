/**
 * The interface's schemas — NewPlant, Plant, StoredPlant, PlantPage, Error and the read
 * operations' parameters — in one place: the handlers validate with them and the OpenAPI
 * document is generated from them.
 */
import * as v from 'valibot';
import { CANONICAL_INTEGER, decodeCursor, tagDigest } from './cursor';
import {
  valueSchema,
  type FieldValue,
  type PlantField,
  type TextField,
  type ValueSchema,
} from './field-types';
import { PLANT_FIELDS } from './fields';

/**
 * Builds a module-level value when the module loads. esbuild takes a call of it for free of side
 * effects, so a function's bundle leaves out (and its cold start never builds) the schemas that
 * function does not use: create-plant carries no PlantPage, list-plants no PlantPatch.
 */
/* @__NO_SIDE_EFFECTS__ */
function built<T>(build: () => T): T {
  return build();
}

/** The smallest int64, -2^63. */
export const INT64_MIN = -(2n ** 63n);
/** The largest int64, 2^63 - 1. */
export const INT64_MAX = 2n ** 63n - 1n;

const INT64_RULE = `must be an integer from ${INT64_MIN} to ${INT64_MAX}`;

/**
 * A JSON object with the given members. valibot's `object` also accepts arrays, so the root
 * is checked first; the object's own message is then only ever about a missing member.
 */
function jsonObject<const TEntries extends v.ObjectEntries>(entries: TEntries) {
  return v.pipe(
    v.custom<Record<string, unknown>>(
      (input) => typeof input === 'object' && input !== null && !Array.isArray(input),
      'must be a JSON object',
    ),
    v.object(entries, 'required'),
  );
}

/**
 * An int64 as the strict JSON parser returns it: a `bigint`, never a float64. Any other value
 * (a fraction, a string, a number out of range) breaks the one rule.
 */
export const Int64 = built(() =>
  v.pipe(
    v.bigint(INT64_RULE),
    v.minValue(INT64_MIN, INT64_RULE),
    v.maxValue(INT64_MAX, INT64_RULE),
    v.metadata({ type: 'integer', format: 'int64' }),
  ),
);

export { PLANT_FIELDS } from './fields';
export type { FieldValue, PlantField } from './field-types';

type Fields = typeof PLANT_FIELDS;
/** The name of one of a plant's members besides its id. */
export type PlantFieldName = keyof Fields;
/** The plant's members besides its id, in schema order: what every mapping loops over. */
export const PLANT_FIELD_NAMES = Object.keys(PLANT_FIELDS) as PlantFieldName[];

/** The names of the string fields. */
export type TextFieldName = {
  [F in PlantFieldName]: Fields[F] extends TextField ? F : never;
}[PlantFieldName];
/** The string fields, in schema order. */
export const TEXT_FIELD_NAMES = built(() =>
  PLANT_FIELD_NAMES.filter(
    (field): field is TextFieldName => PLANT_FIELDS[field].type === 'string',
  ),
);

/** The most characters each string field may have on create, by name. */
export const PLANT_TEXT_LIMITS = built(
  () =>
    Object.fromEntries(TEXT_FIELD_NAMES.map((field) => [field, PLANT_FIELDS[field].maxLength])) as {
      readonly [F in TextFieldName]: Fields[F]['maxLength'];
    },
);

/** The value a member holds, by name. */
export type PlantValue<F extends PlantFieldName> = FieldValue<Fields[F]>;

type Entries = {
  readonly [F in PlantFieldName]: Fields[F]['required'] extends true
    ? ValueSchema<Fields[F]>
    : v.OptionalSchema<ValueSchema<Fields[F]>, undefined>;
};

/**
 * A plant's members as valibot entries: bounded as a create takes and answers them, or with no
 * bound as the reads answer them (a plant stored before the limits existed is read, listed and
 * deleted as it is).
 */
function plantEntries(bounded: boolean): Entries {
  return Object.fromEntries(
    PLANT_FIELD_NAMES.map((name) => {
      const field: PlantField = PLANT_FIELDS[name];
      const value = valueSchema(name, field, bounded);
      return [name, field.required ? value : v.optional(value)];
    }),
  ) as Entries;
}

/** A plant's members as a create takes and answers them: bounded. */
const PlantEntries = built(() => plantEntries(true));
/** A plant's members as the reads answer them: no bound. */
const StoredPlantEntries = built(() => plantEntries(false));

/** A plant's members besides its id as some object holds them: absent or `undefined` alike. */
export type PlantMembers = { readonly [F in PlantFieldName]?: unknown };

/**
 * The members of a plant that `source` has, besides its id, in schema order; one that is absent
 * or `undefined` is left out, anything else `source` holds (its id, audit attributes) too.
 */
export function plantMembers<T extends PlantMembers>(source: T): Pick<T, PlantFieldName> {
  const members: PlantMembers = {};
  for (const field of PLANT_FIELD_NAMES) {
    if (source[field] !== undefined) (members as Record<string, unknown>)[field] = source[field];
  }
  return members as Pick<T, PlantFieldName>;
}

/** The members, besides the id, in which two plants differ (none for a safe retry). */
export function differingMembers(a: PlantMembers, b: PlantMembers): PlantFieldName[] {
  return PLANT_FIELD_NAMES.filter((field) => a[field] !== b[field]);
}

/** Words joined as prose: `a`, `a or b`, `a, b or c`. */
export function inWords(items: readonly string[], conjunction: 'and' | 'or'): string {
  return items.length < 2
    ? items.join('')
    : `${items.slice(0, -1).join(', ')} ${conjunction} ${items.at(-1)}`;
}

/** The plant's members in words, `name or tag` (`name, tag or note` with a third). */
export const PLANT_FIELDS_IN_WORDS = inWords(PLANT_FIELD_NAMES, 'or');

/** A plant's id as the schemas describe it, with the example each document shows. */
function plantId(example: number | bigint) {
  return v.pipe(
    Int64,
    v.description('Identification number of the plant'),
    v.metadata({ examples: [example] }),
  );
}

/** A plant as the service answers it. */
export const Plant = built(() =>
  v.pipe(
    jsonObject(PlantEntries),
    v.description('A plant as POST /plants answers it: its name and tag, never its id.'),
  ),
);
export type Plant = v.InferOutput<typeof Plant>;

/** The body of POST /plants: a Plant and its id. Unknown members are dropped. */
export const NewPlant = built(() =>
  v.pipe(
    jsonObject({ id: plantId(1), ...PlantEntries }),
    v.description(
      'The body of POST /plants. `id` is an int64 and must never pass through a float64: a JavaScript number loses digits above 2^53 (9007199254740993 would become 9007199254740992). `name` and `tag` count their characters as Unicode code points, as `maxLength` does: an emoji outside the Basic Multilingual Plane is one character, though a JavaScript string holds it in two units. Other members are accepted and ignored.',
    ),
  ),
);
export type NewPlant = v.InferOutput<typeof NewPlant>;

/** A plant's members as a merge patch names them: each optional, and an optional one may be `null`. */
function patchEntries() {
  return Object.fromEntries(
    PLANT_FIELD_NAMES.map((name) => {
      const field: PlantField = PLANT_FIELDS[name];
      const value = valueSchema(name, field, true);
      return [name, v.optional(field.required ? value : v.nullable(value))];
    }),
  ) as {
    readonly [F in PlantFieldName]: Fields[F]['required'] extends true
      ? v.OptionalSchema<ValueSchema<Fields[F]>, undefined>
      : v.OptionalSchema<v.NullableSchema<ValueSchema<Fields[F]>, undefined>, undefined>;
  };
}

/** The body of PUT /plants/{id}: a Plant, and its id if sent (it must be the path's). */
export const PlantReplacement = built(() =>
  v.pipe(
    jsonObject({ id: v.optional(plantId(1)), ...PlantEntries }),
    v.description(
      "The body of PUT /plants/{id}: the plant's members besides its id, each replaced (a member left out is removed, `name` is required), with the rules of NewPlant. An `id` may be sent and must then equal the path's. Other members are accepted and ignored.",
    ),
  ),
);
export type PlantReplacement = v.InferOutput<typeof PlantReplacement>;

/** The body of PATCH /plants/{id}: a JSON Merge Patch (RFC 7396) of a plant. */
export const PlantPatch = built(() =>
  v.pipe(
    jsonObject({ id: v.optional(plantId(1)), ...patchEntries() }),
    v.description(
      "The body of PATCH /plants/{id}, a JSON Merge Patch (RFC 7396): a member with a value sets it (the rules of NewPlant), `null` removes it (`tag`; `name` is required and cannot be removed), a member left out stays as it is. An `id` may be sent and must then equal the path's. Other members are accepted and ignored.",
    ),
  ),
);
export type PlantPatch = v.InferOutput<typeof PlantPatch>;

/** A stored plant as GET /plants/{id} and GET /plants answer it: its id with every digit. */
export const StoredPlant = built(() =>
  v.pipe(
    v.object({ id: plantId(9007199254740993n), ...StoredPlantEntries }),
    v.description(
      'A plant as GET /plants/{id} and GET /plants answer it: its id as a JSON integer with every digit (never a string, never through a float64), its name, and its tag only if it has one. A plant stored before the length limits of NewPlant existed is answered as it is, so its name or tag may be longer.',
    ),
  ),
);
export type StoredPlant = v.InferOutput<typeof StoredPlant>;

/** One page of GET /plants; `next` is present when more plants may follow. */
export const PlantPage = built(() =>
  v.pipe(
    v.object({
      plants: v.pipe(
        v.array(StoredPlant),
        v.description('At most `limit` plants; possibly fewer, even none, while `next` is present'),
      ),
      next: v.optional(
        v.pipe(
          v.string(),
          v.description(
            'Opaque cursor: pass it as `cursor` to get the next page; absent on the last page',
          ),
        ),
      ),
    }),
    v.description(
      'One page of GET /plants. The walk ends only when `next` is absent; it returns every plant that existed for the whole walk exactly once, in no particular order.',
    ),
  ),
);
export type PlantPage = v.InferOutput<typeof PlantPage>;

/**
 * The `{id}` of `/plants/{id}`, after the gateway's percent-decoding: the canonical decimal
 * spelling of an int64, as a `bigint`. Anything else breaks the one int64 rule.
 */
export const PathId = built(() =>
  v.pipe(
    v.string(INT64_RULE),
    v.regex(CANONICAL_INTEGER, INT64_RULE),
    v.transform((text) => BigInt(text)),
    v.minValue(INT64_MIN, INT64_RULE),
    v.maxValue(INT64_MAX, INT64_RULE),
    v.metadata({ type: 'integer', format: 'int64' }),
    v.description('Identification number of the plant'),
  ),
);

/** The path parameters of `/plants/{id}`; a missing id breaks the same rule. */
export const PlantPath = built(() => v.object({ id: PathId }, INT64_RULE));
export type PlantPath = v.InferOutput<typeof PlantPath>;

/** The smallest, default and largest page size of GET /plants. */
export const PAGE_LIMIT = { min: 1, default: 20, max: 100 } as const;
const LIMIT_RULE = `must be an integer from ${PAGE_LIMIT.min} to ${PAGE_LIMIT.max}`;
/** Why a `cursor` is refused: not one of ours, or one of another list. */
export const CURSOR_RULES = {
  any: 'must be the next value of a previous page',
  sameList: 'must be the next value of a previous page of the same list (the same tag, or none)',
} as const;
/**
 * The longest partition key a DynamoDB index takes, in UTF-8 bytes: a tag stored before the
 * limits existed may be longer than a create allows, and is listed by it up to this.
 */
export const INDEX_KEY_MAX_BYTES = 2048;
/** A listed tag is a key of the index: not empty, and at most what the index takes. */
export const LIST_TAG_RULE = `must not be empty, and at most ${INDEX_KEY_MAX_BYTES} bytes in UTF-8`;

/**
 * The query of GET /plants: `limit` (canonical decimal), `tag` (only that tag's plants) and
 * `cursor` (valid for the list that made it only); other parameters are ignored. The output's
 * `cursor` is the id the walk resumes after.
 */
export const PageQuery = built(() =>
  v.pipe(
    v.object({
      limit: v.optional(
        v.pipe(
          v.string(LIMIT_RULE),
          v.regex(/^[1-9]\d{0,2}$/, LIMIT_RULE),
          v.transform(Number),
          v.maxValue(PAGE_LIMIT.max, LIMIT_RULE),
          v.description('Plants per page at most'),
        ),
        String(PAGE_LIMIT.default),
      ),
      tag: v.optional(
        v.pipe(
          v.string(LIST_TAG_RULE),
          v.minLength(1, LIST_TAG_RULE),
          v.maxBytes(INDEX_KEY_MAX_BYTES, LIST_TAG_RULE),
          v.description('Only the plants with this tag, in id order'),
        ),
      ),
      cursor: v.optional(
        v.pipe(
          v.string(CURSOR_RULES.any),
          v.rawTransform(({ dataset, addIssue, NEVER }) => {
            const cursor = decodeCursor(dataset.value);
            if (cursor === undefined) {
              addIssue({ message: CURSOR_RULES.any });
              return NEVER;
            }
            return cursor;
          }),
          v.description('The next value of the previous page'),
        ),
      ),
    }),
    v.forward(
      v.check(
        ({ tag, cursor }) =>
          cursor?.tag === (cursor && tag !== undefined ? tagDigest(tag) : undefined),
        CURSOR_RULES.sameList,
      ),
      ['cursor'],
    ),
    v.transform(({ limit, tag, cursor }) => ({
      limit,
      ...(tag === undefined ? {} : { tag }),
      ...(cursor === undefined ? {} : { cursor: cursor.id }),
    })),
  ),
);
export type PageQuery = v.InferOutput<typeof PageQuery>;

/** Every error answer of the function: `error` repeats the HTTP status. */
export const ErrorBody = built(() =>
  v.pipe(
    v.object({
      error: v.pipe(
        v.number(),
        v.integer(),
        v.minValue(-(2 ** 31)),
        v.maxValue(2 ** 31 - 1),
        v.metadata({ format: 'int32' }),
        v.description('Numeric error value'),
        v.examples([400]),
      ),
      message: v.pipe(
        v.string(),
        v.description('Error message'),
        v.examples(['id: required; name: must be a string']),
      ),
    }),
    v.description(
      'An error answered by the function. `error` equals the HTTP status; a 4xx `message` says what to fix, a 5xx one is generic.',
    ),
  ),
);
export type ErrorBody = v.InferOutput<typeof ErrorBody>;

/**
 * The body of an answer that the API gateway gives itself, before or instead of the function
 * (no route, no or a refused token, throttling, a failed or timed-out function). Only the
 * OpenAPI document and the tests use it; the local gateway writes the same shape.
 */
export const GatewayMessage = built(() =>
  v.pipe(
    v.strictObject({
      message: v.pipe(
        v.string(),
        v.description('The status in words, e.g. "Unauthorized" or "Service Unavailable"'),
        v.examples(['Unauthorized']),
      ),
    }),
    v.description('An answer of the API gateway itself: the function was not called or failed.'),
  ),
);
export type GatewayMessage = v.InferOutput<typeof GatewayMessage>;

/**
 * Formats every issue as `field: rule`, joined by `; ` in schema order; the root is `body`.
 */
export function describeIssues(issues: readonly v.BaseIssue<unknown>[]): string {
  return issues.map((issue) => `${v.getDotPath(issue) ?? 'body'}: ${issue.message}`).join('; ');
}
