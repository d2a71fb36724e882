/**
 * A JSON Schema object of the OpenAPI document as a markdown table: each member's type, whether
 * it is required, its limits and its description. The field-limits block and the HTTP API
 * reference both show schemas this way, so a field of any type reads the same in each.
 */

/** The part of a JSON Schema the tables read. */
export interface JsonSchema {
  readonly $ref?: string;
  readonly type?: string | readonly string[];
  readonly format?: string;
  readonly description?: string;
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly required?: readonly string[];
  readonly items?: JsonSchema;
  readonly enum?: readonly unknown[];
  readonly const?: unknown;
  readonly anyOf?: readonly JsonSchema[];
  readonly oneOf?: readonly JsonSchema[];
  readonly allOf?: readonly JsonSchema[];
  readonly [keyword: string]: unknown;
}

/** The keywords that bound a value, and how a table writes each. */
const LIMITS: readonly [keyword: string, words: string][] = [
  ['minLength', 'at least {} characters'],
  ['maxLength', 'at most {} characters'],
  ['minimum', '≥ {}'],
  ['exclusiveMinimum', '> {}'],
  ['maximum', '≤ {}'],
  ['exclusiveMaximum', '< {}'],
  ['multipleOf', 'a multiple of {}'],
  ['minItems', 'at least {} items'],
  ['maxItems', 'at most {} items'],
  ['pattern', 'matches `{}`'],
];

/** A value as a table cell writes it: a bigint or number with every digit, text as JSON. */
const literal = (value: unknown): string =>
  typeof value === 'bigint' || typeof value === 'number' ? String(value) : JSON.stringify(value);

/**
 * Text as markdown shows it: a `<` outside a code span would open an HTML tag (`<owner>` would
 * vanish), so it is written `&lt;` there.
 */
export const plainText = (text: string): string =>
  text
    .split('`')
    .map((part, i) => (i % 2 === 0 ? part.replace(/</g, '&lt;') : part))
    .join('`');

/** `|` and line breaks would end a cell. */
export const cell = (text: string): string =>
  plainText(text)
    .replace(/\|/g, '\\|')
    .split('\n')
    .map((line) => line.trim())
    .join(' ');

/** The name a `$ref` points to: `#/components/schemas/Plant` is `Plant`. */
export const refName = (ref: string): string => ref.slice(ref.lastIndexOf('/') + 1);

/** The schema's type in words: `string`, `integer (int64)`, `Plant`, `array of Plant`, `a | b`. */
export function typeOf(schema: JsonSchema): string {
  if (schema.$ref !== undefined) return refName(schema.$ref);
  const union = schema.anyOf ?? schema.oneOf;
  if (union !== undefined) return union.map(typeOf).join(' \\| ');
  if (schema.allOf !== undefined) return schema.allOf.map(typeOf).join(' & ');
  if (schema.const !== undefined) return literal(schema.const);
  if (schema.enum !== undefined) return schema.enum.map(literal).join(' \\| ');
  const types = ([] as string[]).concat(schema.type ?? 'any');
  const base = types
    .map((type) => (type === 'array' && schema.items ? `array of ${typeOf(schema.items)}` : type))
    .join(' \\| ');
  return schema.format === undefined ? base : `${base} (${schema.format})`;
}

/** The schema's bounds in words, `—` when it has none. */
export function limitsOf(schema: JsonSchema): string {
  const { minLength, maxLength } = schema;
  if (typeof minLength === 'number' && typeof maxLength === 'number') {
    const rest = limitsOf({ ...schema, minLength: undefined, maxLength: undefined });
    return `${minLength} to ${maxLength} characters${rest === '—' ? '' : `, ${rest}`}`;
  }
  const limits = LIMITS.filter(([keyword]) => schema[keyword] !== undefined).map(
    ([keyword, words]) =>
      keyword === 'minLength' && schema[keyword] === 1
        ? 'not empty'
        : words.replace(
            '{}',
            keyword === 'pattern' ? String(schema[keyword]) : literal(schema[keyword]),
          ),
  );
  return limits.length > 0 ? limits.join(', ') : '—';
}

/** The object schema's members as a table: member, type, required, limits, description. */
export function schemaTable(schema: JsonSchema): string {
  const required = new Set(schema.required ?? []);
  const rows = Object.entries(schema.properties ?? {}).map(([name, member]) =>
    [
      `\`${name}\``,
      typeOf(member),
      required.has(name) ? 'yes' : 'no',
      limitsOf(member),
      cell(member.description ?? ''),
    ].join(' | '),
  );
  return [
    '| Member | Type | Required | Limits | Description |',
    '| --- | --- | --- | --- | --- |',
    ...rows.map((row) => `| ${row} |`),
  ].join('\n');
}

/**
 * One list item per member of the object schema: `name` (type, required or optional; limits):
 * the first sentence of its description.
 */
export function memberList(
  schema: JsonSchema,
  describe: (description?: string) => string = (description = '') => cell(description),
): string[] {
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {}).map(([name, member]) => {
    const limits = limitsOf(member);
    const about = [typeOf(member), required.has(name) ? 'required' : 'optional'].join(', ');
    return `- \`${name}\` (${about}${limits === '—' ? '' : `; ${limits}`}): ${describe(member.description)}`;
  });
}
