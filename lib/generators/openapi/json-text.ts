/**
 * JSON text, indented by two spaces, in which a `bigint` is written with every digit:
 * `JSON.stringify` cannot write one, and a number would round int64 bounds.
 */
export function jsonText(value: unknown, indent = ''): string {
  if (typeof value === 'bigint') return value.toString();
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    const inner = `${indent}  `;
    return `[\n${value.map((item) => inner + jsonText(item, inner)).join(',\n')}\n${indent}]`;
  }
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).filter(([, item]) => item !== undefined);
    if (entries.length === 0) return '{}';
    const inner = `${indent}  `;
    const members = entries.map(
      ([key, item]) => `${inner}${JSON.stringify(key)}: ${jsonText(item, inner)}`,
    );
    return `{\n${members.join(',\n')}\n${indent}}`;
  }
  const text = JSON.stringify(value);
  if (text === undefined) throw new Error(`cannot write ${String(value)} as JSON`);
  return text;
}
