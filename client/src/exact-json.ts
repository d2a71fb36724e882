/**
 * JSON in and out without rounding ids. `JSON.parse` turns 9007199254740993 into
 * 9007199254740992; here every member named `id` becomes a `bigint` read from its digits: by the
 * platform's JSON source text access (the reviver's `context.source`: Node 21+, current
 * browsers) where there is one, by lossless-json otherwise (Node 20).
 */
import { isLosslessNumber, parse as parseLossless } from 'lossless-json';

type SourceReviver = (key: string, value: unknown, context?: { source?: string }) => unknown;

/** Whether `JSON.parse` hands a reviver each primitive's source text. */
export const HAS_SOURCE_TEXT = (() => {
  let source: string | undefined;
  const reviver: SourceReviver = (_key, value, context) => {
    source = context?.source;
    return value;
  };
  JSON.parse('1', reviver as Parameters<typeof JSON.parse>[1]);
  return source === '1';
})();

const reviveSource: SourceReviver = (key, value, context) =>
  key === 'id' && typeof value === 'number' ? BigInt(context!.source!) : value;

const reviveLossless = (key: string, value: unknown): unknown => {
  if (!isLosslessNumber(value)) return value;
  return key === 'id' ? BigInt(value.toString()) : value.valueOf();
};

/** Parses an answer of the API: members named `id` as `bigint`, every other number as `number`. */
export function parseExact(text: string): unknown {
  return HAS_SOURCE_TEXT
    ? JSON.parse(text, reviveSource as Parameters<typeof JSON.parse>[1])
    : parseLossless(text, reviveLossless);
}

/** `{"id":<every digit>, ...rest}`: `JSON.stringify` cannot write a `bigint`. */
export function stringifyWithId(id: bigint, rest: Record<string, unknown>): string {
  const members = JSON.stringify(rest).slice(1);
  return `{"id":${id}${members === '}' ? '' : ','}${members}`;
}
