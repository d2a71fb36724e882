/**
 * The interface's schemas — NewPlant, Plant and Error — in one place: the handler validates
 * with them and the OpenAPI document is generated from them.
 */
import * as v from 'valibot';

/** The smallest int64, -2^63. */
export const INT64_MIN = -(2n ** 63n);
/** The largest int64, 2^63 - 1. */
export const INT64_MAX = 2n ** 63n - 1n;

const INT64_RULE = `must be an integer from ${INT64_MIN} to ${INT64_MAX}`;
const STRING_RULE = 'must be a string';

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
export const Int64 = v.pipe(
  v.bigint(INT64_RULE),
  v.minValue(INT64_MIN, INT64_RULE),
  v.maxValue(INT64_MAX, INT64_RULE),
  v.metadata({ type: 'integer', format: 'int64' }),
);

const PlantEntries = {
  name: v.pipe(
    v.string(STRING_RULE),
    v.description('The name of the plant'),
    v.examples(['Monstera']),
  ),
  tag: v.optional(
    v.pipe(
      v.string(STRING_RULE),
      v.description('Tag that specifies the type of the plant'),
      v.examples(['aroid']),
    ),
  ),
};

/** A plant as the service answers it. */
export const Plant = v.pipe(
  jsonObject(PlantEntries),
  v.description('A plant as POST /plants answers it: its name and tag, never its id.'),
);
export type Plant = v.InferOutput<typeof Plant>;

/** The body of POST /plants: a Plant and its id. Unknown members are dropped. */
export const NewPlant = v.pipe(
  jsonObject({
    id: v.pipe(
      Int64,
      v.description('Identification number of the plant'),
      v.metadata({ examples: [1] }),
    ),
    ...PlantEntries,
  }),
  v.description(
    'The body of POST /plants. `id` is an int64 and must never pass through a float64: a JavaScript number loses digits above 2^53 (9007199254740993 would become 9007199254740992). Other members are accepted and ignored.',
  ),
);
export type NewPlant = v.InferOutput<typeof NewPlant>;

/** Every error answer of the function: `error` repeats the HTTP status. */
export const ErrorBody = v.pipe(
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
);
export type ErrorBody = v.InferOutput<typeof ErrorBody>;

/**
 * The body of an answer that the API gateway gives itself, before or instead of the function
 * (no route, no or a refused token, throttling, a failed or timed-out function). Only the
 * OpenAPI document and the tests use it; the local gateway writes the same shape.
 */
export const GatewayMessage = v.pipe(
  v.strictObject({
    message: v.pipe(
      v.string(),
      v.description('The status in words, e.g. "Unauthorized" or "Service Unavailable"'),
      v.examples(['Unauthorized']),
    ),
  }),
  v.description('An answer of the API gateway itself: the function was not called or failed.'),
);
export type GatewayMessage = v.InferOutput<typeof GatewayMessage>;

/**
 * Formats every issue as `field: rule`, joined by `; ` in schema order; the root is `body`.
 */
export function describeIssues(issues: readonly v.BaseIssue<unknown>[]): string {
  return issues.map((issue) => `${v.getDotPath(issue) ?? 'body'}: ${issue.message}`).join('; ');
}
