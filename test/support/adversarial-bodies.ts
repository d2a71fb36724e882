/**
 * Adversarial POST /plants bodies at the 256 KiB limit, each with the answer create-plant must
 * give. They aim at the parser and the validator: long runs of zeros in integers, fractions and
 * exponents (a `/0+$/` over such a run once took 22 s of CPU), huge exponents, many numbers,
 * many and long keys, deep nesting, long escapes, surrogate pairs and whitespace. The tests
 * check every answer; `npm run bench -- --phases parse` reports the worst reading times and
 * fails on a body over its CPU budget.
 */
import { MAX_BODY_BYTES } from '../../lambda/create-plant/request';
import { PLANT_TEXT_LIMITS } from '../../lambda/plants/schemas';

/** A body and the answer the function owes it: the stored plant, or an Error message's shape. */
export type AdversarialBody = {
  /** A short kebab-case label, stable for reports. */
  readonly name: string;
  /** The body text: exactly `MAX_BODY_BYTES` bytes of UTF-8 (one byte more for the 413 case). */
  readonly body: string;
} & (
  | {
      readonly status: 200;
      /** The plant stored (and echoed without `id`). */
      readonly plant: { readonly id: bigint; readonly name: string; readonly tag?: string };
    }
  | { readonly status: 400 | 413; readonly message: RegExp }
);

const INT64_RULE = 'id: must be an integer from -9223372036854775808 to 9223372036854775807';
const ID_RULE = new RegExp(`^${INT64_RULE}$`);
const syntax = (reason: string, rule = 'must be valid JSON') =>
  new RegExp(`^body: ${rule} \\(${reason} at position \\d+\\)$`);

/** `body` padded with trailing spaces (JSON whitespace) to exactly `limit` bytes. */
function pad(body: string, limit = MAX_BODY_BYTES): string {
  const missing = limit - Buffer.byteLength(body, 'utf8');
  if (missing < 0) throw new Error(`adversarial body is ${-missing} bytes over ${limit}`);
  return body + ' '.repeat(missing);
}

/**
 * `head`, then `unit` as many times as fits, then `tail(count)`, padded to the limit; `tail`
 * may depend on the count (for exponents that cancel a run of digits) but must not grow
 * beyond its length for a six-digit count.
 */
function fill(head: string, unit: string, tail: (count: number) => string = () => ''): string {
  const fixed = Buffer.byteLength(head + tail(999_999), 'utf8');
  const count = Math.floor((MAX_BODY_BYTES - fixed) / Buffer.byteLength(unit, 'utf8'));
  return pad(head + unit.repeat(count) + tail(count));
}

/** How many `unit`s `fill` fits between `head` and `tail`. */
function countFitting(head: string, unit: string, tail = ''): number {
  return Math.floor(
    (MAX_BODY_BYTES - Buffer.byteLength(head + tail, 'utf8')) / Buffer.byteLength(unit, 'utf8'),
  );
}

/** `[open]…[close]` nested `levels` deep. */
const nested = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);

/** The answer to a name or tag longer than its limit: the whole string is still parsed. */
const NAME_TOO_LONG = new RegExp(`^name: must be at most ${PLANT_TEXT_LIMITS.name} characters$`);
const TAG_TOO_LONG = new RegExp(`^tag: must be at most ${PLANT_TEXT_LIMITS.tag} characters$`);
const duplicateKey = countFitting('{"":1,"":2}', 'kk');
/** Keys of one width (`k0000`…), as many as fit beside the given head and tail. */
const keys = (head: string, tail: string) =>
  Array.from({ length: countFitting(head, ',"k0000":0', tail) }, (_, i) =>
    i.toString(36).padStart(4, '0'),
  );
/** Objects nested `levels` deep, `{"a":{"a":…0…}}`. */
const deepObject = (levels: number) => `${'{"a":'.repeat(levels)}0${'}'.repeat(levels)}`;

/**
 * Every adversarial body, in a stable order. Two bodies with one id store the same plant, so
 * the whole list can be sent to one store and every answer still holds.
 */
export const ADVERSARIAL_BODIES: readonly AdversarialBody[] = [
  {
    name: 'zero-run-in-ignored-fraction',
    body: fill('{"id":2,"name":"x","n":0.1', '0', () => '1}'),
    status: 200,
    plant: { id: 2n, name: 'x' },
  },
  {
    name: 'zero-run-in-id-fraction',
    body: fill('{"name":"x","id":2.', '0', () => '1}'),
    status: 400,
    message: ID_RULE,
  },
  {
    name: 'zero-run-after-integer-id',
    body: fill('{"name":"x","id":2.', '0', () => '}'),
    status: 200,
    plant: { id: 2n, name: 'x' },
  },
  {
    name: 'zero-run-in-integer',
    body: fill('{"name":"x","id":1', '0', () => '1}'),
    status: 400,
    message: ID_RULE,
  },
  {
    name: 'zero-run-cancelled-by-exponent',
    body: fill('{"name":"x","id":1', '0', (count) => `e-${count}}`),
    status: 200,
    plant: { id: 1n, name: 'x' },
  },
  {
    name: 'leading-zero-run-in-fraction-scaled-up',
    body: fill('{"name":"x","id":0.', '0', (count) => `7e${count + 1}}`),
    status: 200,
    plant: { id: 7n, name: 'x' },
  },
  {
    name: 'zero-run-in-exponent',
    body: fill('{"name":"x","id":3e+', '0', () => '2}'),
    status: 200,
    plant: { id: 300n, name: 'x' },
  },
  {
    name: 'huge-exponent',
    body: fill('{"name":"x","id":1e', '9', () => '}'),
    status: 400,
    message: ID_RULE,
  },
  {
    name: 'huge-negative-exponent',
    body: fill('{"name":"x","id":1e-', '9', () => '}'),
    status: 400,
    message: ID_RULE,
  },
  {
    name: 'zero-with-huge-exponent',
    body: fill('{"name":"x","id":0e', '9', () => '}'),
    status: 200,
    plant: { id: 0n, name: 'x' },
  },
  {
    name: 'nine-run-in-fraction',
    body: fill('{"name":"x","id":9.', '9', () => '}'),
    status: 400,
    message: ID_RULE,
  },
  {
    name: 'zero-run-after-minus',
    body: fill('{"name":"x","id":-', '0', () => '}'),
    status: 400,
    message: syntax('invalid number'),
  },
  {
    name: 'many-integers',
    body: fill('{"id":4,"name":"x","n":[0', ',9223372036854775807', () => ']}'),
    status: 200,
    plant: { id: 4n, name: 'x' },
  },
  {
    name: 'many-fractions-with-zero-runs',
    body: fill('{"id":5,"name":"x","n":[0', `,0.1${'0'.repeat(64)}1`, () => ']}'),
    status: 200,
    plant: { id: 5n, name: 'x' },
  },
  {
    name: 'many-huge-exponents',
    body: fill('{"id":6,"name":"x","n":[0', ',1e999999999', () => ']}'),
    status: 200,
    plant: { id: 6n, name: 'x' },
  },
  {
    name: 'many-scaled-integers',
    body: fill('{"id":7,"name":"x","n":[0', ',0.5e19', () => ']}'),
    status: 200,
    plant: { id: 7n, name: 'x' },
  },
  {
    name: 'many-keys',
    body: pad(
      `{"id":8,"name":"x"${keys('{"id":8,"name":"x"', '}')
        .map((k) => `,"k${k}":0`)
        .join('')}}`,
    ),
    status: 200,
    plant: { id: 8n, name: 'x' },
  },
  {
    name: 'many-keys-duplicate-last',
    body: pad(
      `{${keys('{', '"k0000":1}')
        .map((k) => `"k${k}":0,`)
        .join('')}"k0000":1}`,
    ),
    status: 400,
    message: /^k0000: appears more than once$/,
  },
  {
    name: 'long-key',
    body: fill('{"id":9,"name":"x","', 'k', () => '":1}'),
    status: 200,
    plant: { id: 9n, name: 'x' },
  },
  {
    name: 'long-key-twice',
    body: pad(`{"${'kk'.repeat(duplicateKey / 2)}":1,"${'kk'.repeat(duplicateKey / 2)}":2}`),
    status: 400,
    message: /^k+: appears more than once$/,
  },
  {
    name: 'deep-nesting-at-the-limit-repeated',
    body: fill('{"id":10,"name":"x","n":[', `${nested(510)},`, () => '0]}'),
    status: 200,
    plant: { id: 10n, name: 'x' },
  },
  {
    name: 'deep-nesting-beyond-the-limit',
    body: pad(`{"id":11,"name":"x","n":${nested(130_000)}}`),
    status: 400,
    message: syntax('nesting deeper than 512 levels', 'must nest at most 512 levels'),
  },
  {
    name: 'deep-objects',
    body: fill('{"id":12,"name":"x","n":[', `${deepObject(510)},`, () => '0]}'),
    status: 200,
    plant: { id: 12n, name: 'x' },
  },
  {
    name: 'many-small-objects',
    body: fill('{"id":13,"name":"x","n":[{}', ',{"a":[],"b":{}}', () => ']}'),
    status: 200,
    plant: { id: 13n, name: 'x' },
  },
  {
    name: 'many-empty-strings',
    body: fill('{"id":14,"name":"x","n":[""', ',""', () => ']}'),
    status: 200,
    plant: { id: 14n, name: 'x' },
  },
  {
    name: 'long-escapes',
    body: fill('{"id":18,"name":"', '\\n', () => '"}'),
    status: 400,
    message: NAME_TOO_LONG,
  },
  {
    name: 'long-unicode-escapes',
    body: fill('{"id":15,"name":"x","tag":"', '\\u0041', () => '"}'),
    status: 400,
    message: TAG_TOO_LONG,
  },
  {
    name: 'escaped-surrogate-pairs',
    body: fill('{"id":19,"name":"', '\\ud83c\\udf31', () => '"}'),
    status: 400,
    message: NAME_TOO_LONG,
  },
  {
    name: 'raw-surrogate-pairs',
    body: fill('{"id":20,"name":"', '🌱', () => '"}'),
    status: 400,
    message: NAME_TOO_LONG,
  },
  {
    name: 'escapes-at-the-limits',
    body: pad(
      `{"id":21,"name":"${'\\ud83c\\udf31'.repeat(1000)}","tag":"${'\\u0041\\n'.repeat(50)}"}`,
    ),
    status: 200,
    plant: { id: 21n, name: '🌱'.repeat(1000), tag: 'A\n'.repeat(50) },
  },
  {
    name: 'lone-surrogate-after-pairs',
    body: fill('{"id":1,"name":"', '\\ud83c\\udf31', () => '\\ud83c"}'),
    status: 400,
    message: syntax('string with a lone surrogate', 'must be I-JSON, RFC 7493'),
  },
  {
    name: 'whitespace',
    body: pad(`${' \t\r\n'.repeat(30_000)}{ "id" : 16 , "name" : "x" }`),
    status: 200,
    plant: { id: 16n, name: 'x' },
  },
  {
    name: 'whitespace-between-tokens',
    body: fill('{"id":17,"name":"x","n":[0', ' \n\t, 0 ', () => ']}'),
    status: 200,
    plant: { id: 17n, name: 'x' },
  },
  {
    name: 'unterminated-string',
    body: fill('{"id":1,"name":"', 'x'),
    status: 400,
    message: syntax('unterminated string'),
  },
  {
    name: 'one-byte-over-the-limit',
    body: pad('{"id":1,"name":"x"}', MAX_BODY_BYTES + 1),
    status: 413,
    message: new RegExp(
      `^body: must be at most ${MAX_BODY_BYTES} bytes; got ${MAX_BODY_BYTES + 1}$`,
    ),
  },
];
