/**
 * The one serializer for answers. `JSON.stringify` cannot write a `bigint` and any path through
 * a float64 loses digits beyond 2^53, so ids (bigints) are written here as JSON integers with
 * every digit; everything else is written as `JSON.stringify` would write it.
 */

/** `value` as JSON text; a `bigint` becomes a JSON integer with all its digits. */
export function stringifyJson(value: unknown): string {
  return write(value) ?? 'null';
}

/** The JSON text of `value`, or `undefined` where `JSON.stringify` would leave it out. */
function write(value: unknown): string | undefined {
  if (typeof value === 'bigint') return value.toString();
  if (Array.isArray(value)) return `[${value.map((item) => write(item) ?? 'null').join(',')}]`;
  if (typeof value === 'object' && value !== null && !hasToJson(value)) {
    const members: string[] = [];
    for (const [key, member] of Object.entries(value)) {
      const text = write(member);
      if (text !== undefined) members.push(`${JSON.stringify(key)}:${text}`);
    }
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value);
}

function hasToJson(value: object): boolean {
  return typeof (value as { toJSON?: unknown }).toJSON === 'function';
}
