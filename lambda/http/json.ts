/**
 * A strict JSON parser for request bodies.
 *
 * `JSON.parse` rounds integers beyond 2^53 and keeps the last of two equal member names, both
 * silently. This parser keeps every integer-valued number exact as a `bigint` (`5`, `5.0` and
 * `5e0` are all `5n`), returns other numbers as `number`, rejects duplicate member names and
 * lone surrogates (I-JSON, RFC 7493), and builds objects without a prototype so that a member
 * named `__proto__` is just data.
 */

/** A JSON value as this parser returns it. */
export type JsonValue =
  | null
  | boolean
  | string
  | number
  | bigint
  | JsonNumber
  | JsonValue[]
  | { [key: string]: JsonValue };

/**
 * A number that is not an int64 integer, kept as the literal the body wrote: what `parseJson`
 * returns for one when asked (`{ literals: true }`), so that a schema judges the decimal the
 * client sent (`19.99`, `0.30000000000000004`), never the float64 nearest to it.
 */
export class JsonNumber {
  constructor(readonly literal: string) {}
}

/** How `parseJson` returns a number that is not an int64 integer. */
export interface ParseOptions {
  /** As a `JsonNumber` (its literal) rather than the nearest float64. @default false */
  readonly literals?: boolean;
}

/** The body is not JSON this service accepts: `field` is where (`body` for syntax), `rule` why. */
export class JsonSyntaxError extends Error {
  override readonly name = 'JsonSyntaxError';

  constructor(
    readonly field: string,
    readonly rule: string,
  ) {
    super(`${field}: ${rule}`);
  }
}

/** Deeper nesting is refused rather than risking the stack. */
export const MAX_DEPTH = 512;

/** Digits of the largest int64 magnitude (9223372036854775808); longer integers are out of range. */
const MAX_INT64_DIGITS = 19;
const ZERO = 0x30;
/** 10^0 … 10^19 as bigints. */
const POWERS_OF_TEN = Array.from({ length: MAX_INT64_DIGITS + 1 }, (_, i) => 10n ** BigInt(i));

/**
 * One JSON number, its parts captured: sign, integer digits, fraction digits, exponent. Sticky
 * and unambiguous, so it reads a literal once, left to right, whatever its length.
 */
const NUMBER = /(-?)(0|[1-9]\d*)(?:\.(\d+))?(?:[eE]([+-]?\d+))?/y;
/** A character that may not follow a number: another number character means a malformed one. */
const NUMBER_CHAR = /[\d.eE+-]/;
const WHITESPACE = /[ \t\n\r]*/y;
// JSON forbids raw control characters inside strings; this run stops at them.
// eslint-disable-next-line no-control-regex
const STRING_RUN = /[^"\\\u0000-\u001f]*/y;
const ESCAPES: Record<string, string> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};

/** Parses `text` as one JSON value, or throws `JsonSyntaxError`. */
export function parseJson(text: string, options: ParseOptions = {}): JsonValue {
  const parser = new Parser(text, options.literals === true);
  const value = parser.value(0);
  parser.skipWhitespace();
  if (parser.pos < text.length) parser.fail('unexpected data after the JSON value');
  return value;
}

/**
 * Converts a JSON number literal, given its parts, to a `bigint` when its value is an integer
 * that may be an int64, without ever passing through a float64; anything else becomes a
 * `number`. Linear in the literal's length: the zeros are counted by hand, because a regex
 * such as `/0+$/` retries from every zero of a run followed by another digit (quadratic), and
 * no huge exponent is ever expanded.
 */
function numberFromParts(
  literal: string,
  sign: string,
  integer: string,
  fraction: string,
  exponent: string,
): number | bigint {
  const all = integer + fraction;
  let first = 0;
  while (first < all.length && all.charCodeAt(first) === ZERO) first++;
  if (first === all.length) return 0n;
  let end = all.length;
  while (all.charCodeAt(end - 1) === ZERO) end--;
  // With seven or more exponent digits a non-zero value is a fraction or far beyond int64.
  let exponentStart = exponent.startsWith('+') || exponent.startsWith('-') ? 1 : 0;
  while (exponent.charCodeAt(exponentStart) === ZERO) exponentStart++;
  if (exponent.length - exponentStart > 6) return Number(literal);
  const digits = end - first;
  const scale = Number(exponent) - fraction.length + (all.length - end);
  if (scale < 0 || digits + scale > MAX_INT64_DIGITS) return Number(literal);
  // Up to 15 digits are exact in a float64, and a small bigint product is much cheaper than
  // parsing a string; the scale is at most 18 here.
  const magnitude =
    digits <= 15
      ? BigInt(Number(all.slice(first, end))) * POWERS_OF_TEN[scale]!
      : BigInt(all.slice(first, end) + '0'.repeat(scale));
  return sign === '-' ? -magnitude : magnitude;
}

class Parser {
  pos = 0;
  /** Member names and indices from the root to the value being read; joined only for an error. */
  private readonly path: (string | number)[] = [];

  constructor(
    private readonly text: string,
    private readonly literals: boolean,
  ) {}

  /** Refuses the body by `rule`: JSON's own grammar unless said (I-JSON's, or our limit). */
  fail(reason: string, rule = 'must be valid JSON'): never {
    throw new JsonSyntaxError('body', `${rule} (${reason} at position ${this.pos})`);
  }

  skipWhitespace(): void {
    const c = this.text.charCodeAt(this.pos);
    // Most tokens follow no whitespace: skip the regex then.
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return;
    WHITESPACE.lastIndex = this.pos;
    WHITESPACE.test(this.text);
    this.pos = WHITESPACE.lastIndex;
  }

  value(depth: number): JsonValue {
    this.skipWhitespace();
    const c = this.text[this.pos];
    if (c === '{' || c === '[') {
      if (depth >= MAX_DEPTH) {
        this.fail(
          `nesting deeper than ${MAX_DEPTH} levels`,
          `must nest at most ${MAX_DEPTH} levels`,
        );
      }
      return c === '{' ? this.object(depth + 1) : this.array(depth + 1);
    }
    if (c === '"') return this.string();
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return this.number();
    const literal = c === 't' ? 'true' : c === 'f' ? 'false' : c === 'n' ? 'null' : undefined;
    if (literal !== undefined && this.text.startsWith(literal, this.pos)) {
      this.pos += literal.length;
      return literal === 'null' ? null : literal === 'true';
    }
    return this.fail(c === undefined ? 'unexpected end of input' : 'unexpected character');
  }

  object(depth: number): { [key: string]: JsonValue } {
    const result: { [key: string]: JsonValue } = Object.create(null);
    this.pos++;
    this.skipWhitespace();
    if (this.text[this.pos] === '}') {
      this.pos++;
      return result;
    }
    for (;;) {
      this.skipWhitespace();
      if (this.text[this.pos] !== '"') this.fail('expected a member name');
      const key = this.string();
      if (Object.prototype.hasOwnProperty.call(result, key)) {
        throw new JsonSyntaxError(this.pathTo(key), 'appears more than once');
      }
      this.expect(':');
      this.path.push(key);
      result[key] = this.value(depth);
      this.path.pop();
      if (this.separator('}')) return result;
    }
  }

  array(depth: number): JsonValue[] {
    const result: JsonValue[] = [];
    this.pos++;
    this.skipWhitespace();
    if (this.text[this.pos] === ']') {
      this.pos++;
      return result;
    }
    const level = this.path.push(0) - 1;
    for (;;) {
      this.path[level] = result.length;
      result.push(this.value(depth));
      if (this.separator(']')) {
        this.path.pop();
        return result;
      }
    }
  }

  /** The dotted path of member `key` of the object being read (`a.b[2].key`). */
  pathTo(key: string): string {
    let path = '';
    for (const segment of [...this.path, key]) {
      if (typeof segment === 'number') path = `${path}[${segment}]`;
      else path = path === '' ? segment : `${path}.${segment}`;
    }
    return path;
  }

  /** Consumes `,` (returns false) or `close` (returns true). */
  separator(close: string): boolean {
    this.skipWhitespace();
    const c = this.text[this.pos++];
    if (c === close) return true;
    if (c === ',') return false;
    this.pos--;
    return this.fail(`expected ',' or '${close}'`);
  }

  expect(char: string): void {
    this.skipWhitespace();
    if (this.text[this.pos] !== char) this.fail(`expected '${char}'`);
    this.pos++;
  }

  string(): string {
    const start = this.pos;
    this.pos++;
    let result = '';
    for (;;) {
      STRING_RUN.lastIndex = this.pos;
      STRING_RUN.test(this.text);
      result += this.text.slice(this.pos, STRING_RUN.lastIndex);
      this.pos = STRING_RUN.lastIndex;
      const c = this.text[this.pos];
      if (c === '"') break;
      if (c === undefined) {
        this.pos = start;
        this.fail('unterminated string');
      }
      if (c !== '\\') this.fail('control character in string');
      const e = this.text[this.pos + 1];
      if (e === 'u') {
        const hex = this.text.slice(this.pos + 2, this.pos + 6);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail('invalid \\u escape');
        result += String.fromCharCode(parseInt(hex, 16));
        this.pos += 6;
      } else if (e !== undefined && e in ESCAPES) {
        result += ESCAPES[e];
        this.pos += 2;
      } else {
        this.fail('invalid escape');
      }
    }
    this.pos++;
    if (!result.isWellFormed()) {
      this.pos = start;
      this.fail('string with a lone surrogate', 'must be I-JSON, RFC 7493');
    }
    return result;
  }

  number(): number | bigint | JsonNumber {
    const start = this.pos;
    NUMBER.lastIndex = start;
    const match = NUMBER.exec(this.text);
    if (!match) return this.fail('invalid number');
    this.pos = NUMBER.lastIndex;
    const next = this.text[this.pos];
    if (next !== undefined && NUMBER_CHAR.test(next)) this.fail('invalid number');
    const [literal, sign = '', integer = '', fraction = '', exponent = '0'] = match;
    const value = numberFromParts(literal, sign, integer, fraction, exponent);
    return this.literals && typeof value === 'number' ? new JsonNumber(literal) : value;
  }
}
