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

/** An object's own message names a missing member "required"; the root is "a JSON object". */
const objectRule = (issue: v.ObjectIssue): string =>
  issue.path ? 'required' : 'must be a JSON object';

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

/** A plant as the service answers it. */
export const Plant = v.object(
  {
    name: v.pipe(v.string(STRING_RULE), v.description('The name of the plant')),
    tag: v.optional(
      v.pipe(v.string(STRING_RULE), v.description('Tag that specifies the type of the plant')),
    ),
  },
  objectRule,
);
export type Plant = v.InferOutput<typeof Plant>;

/** The body of POST /plants: a Plant and its id. Unknown members are dropped. */
export const NewPlant = v.object(
  {
    id: v.pipe(Int64, v.description('Identification number of the plant')),
    ...Plant.entries,
  },
  objectRule,
);
export type NewPlant = v.InferOutput<typeof NewPlant>;

/** Every error answer of the function: `error` repeats the HTTP status. */
export const ErrorBody = v.object({
  error: v.pipe(
    v.number(),
    v.integer(),
    v.minValue(-(2 ** 31)),
    v.maxValue(2 ** 31 - 1),
    v.metadata({ format: 'int32' }),
    v.description('Numeric error value: the HTTP status'),
  ),
  message: v.pipe(v.string(), v.description('Error message')),
});
export type ErrorBody = v.InferOutput<typeof ErrorBody>;

/**
 * Formats every issue as `field: rule`, joined by `; ` in schema order; the root is `body`.
 */
export function describeIssues(issues: readonly v.BaseIssue<unknown>[]): string {
  return issues.map((issue) => `${v.getDotPath(issue) ?? 'body'}: ${issue.message}`).join('; ');
}
