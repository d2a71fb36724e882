/**
 * What a plant's field may be — a string, a number or a boolean — and, for each type, the one
 * code every mapping uses: the schema a request is checked with (bounded) and a read answers
 * with (unbounded), the value an item's attribute is read back as, and the rule in words. An
 * entry of `PLANT_FIELDS` (fields.ts) is checked here when the module loads: an entry that
 * cannot be written and read back exactly throws, so every test that loads the schemas fails
 * before any data is stored.
 */
import * as v from 'valibot';
import { JsonNumber } from '../http/json';

interface FieldBase {
  /** Whether a create must send it (a field added later must be optional: stored plants lack it). */
  readonly required: boolean;
  readonly description: string;
}

/** A string of at most `maxLength` code points on create (JSON Schema's count, not UTF-16 units). */
export interface TextField extends FieldBase {
  readonly type: 'string';
  readonly maxLength: number;
  readonly example: string;
}

/**
 * A decimal number from `minimum` to `maximum` with at most `decimals` digits after the point,
 * kept exact: the request's literal is judged (`0.30000000000000004` has 17 decimals, never
 * rounded to 0.3), and a value within the bounds has at most 15 significant digits, so its
 * float64 prints back as the same decimal in the answer, the DynamoDB number and the webhook.
 */
export interface NumberField extends FieldBase {
  readonly type: 'number';
  readonly minimum: number;
  readonly maximum: number;
  readonly decimals: number;
  readonly example: number;
}

/** `true` or `false`. */
export interface BooleanField extends FieldBase {
  readonly type: 'boolean';
  readonly example: boolean;
}

/** One of a plant's members besides its id. */
export type PlantField = TextField | NumberField | BooleanField;

/** The value a field holds once read: a string, a number or a boolean by its type. */
export type FieldValue<F extends PlantField> = F extends TextField
  ? string
  : F extends NumberField
    ? number
    : boolean;

/** A field's value schema: its input is whatever the strict JSON parser gives. */
export type ValueSchema<F extends PlantField> = v.GenericSchema<unknown, FieldValue<F>>;

const STRING_RULE = 'must be a string';
const BOOLEAN_RULE = 'must be true or false';

/** The rule of a number field in words, as its 400 says it. */
export function numberRule(field: NumberField): string {
  const kind = field.decimals === 0 ? 'an integer' : 'a number';
  const decimals =
    field.decimals === 0
      ? ''
      : ` with at most ${field.decimals} decimal${field.decimals === 1 ? '' : 's'}`;
  return `must be ${kind} from ${field.minimum} to ${field.maximum}${decimals}`;
}

/** An exact decimal: `units` × 10^-`decimals` (no float64 on the way). */
interface Scaled {
  readonly units: bigint;
  readonly decimals: number;
}

const LITERAL = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;
/** Beyond these digits a value is beyond every bound (`checkField` keeps every bound below 2^53). */
const MAX_DIGITS = 17;

/**
 * A JSON number's literal as an exact decimal with the fewest decimals, or `undefined` when it
 * is no number or has more than `MAX_DIGITS` digits at `decimals` (beyond every bound).
 */
function scaledOf(literal: string, decimals: number): Scaled | 'too precise' | undefined {
  const match = LITERAL.exec(literal);
  if (!match) return undefined;
  const [, sign = '', integer = '', fraction = '', exponent = '0'] = match;
  let digits = (integer + fraction).replace(/^0+/, '');
  if (digits === '') return { units: 0n, decimals: 0 };
  // Exponents beyond a few digits are beyond every bound (or far below a unit): out of range.
  if (exponent.replace(/^[+-]?0*/, '').length > 6) {
    return exponent.startsWith('-') ? 'too precise' : undefined;
  }
  let scale = Number(exponent) - fraction.length;
  // Trailing zeros counted by hand: a regex such as /0+$/ is quadratic on a long run of them.
  let end = digits.length;
  while (digits.charCodeAt(end - 1) === 0x30) end--;
  scale += digits.length - end;
  digits = digits.slice(0, end);
  const needed = Math.max(0, -scale);
  if (needed > decimals) return 'too precise';
  if (digits.length + scale + decimals > MAX_DIGITS) return undefined;
  const units = BigInt(digits) * 10n ** BigInt(scale + decimals);
  return { units: sign === '-' ? -units : units, decimals };
}

/**
 * The units a bound must stay below: a value of at most 15 significant digits is exact in a
 * float64 (its shortest text is that decimal), one of 16 may not be (83601107875674.01).
 */
const MAX_BOUND_UNITS = 10n ** 15n;

/** A bound of a number field in units of its last decimal (exact, or it throws). */
function boundUnits(name: string, field: NumberField, bound: number): bigint {
  const scaled = scaledOf(String(bound), field.decimals);
  const units = typeof scaled === 'object' ? scaled.units : undefined;
  if (units === undefined || units >= MAX_BOUND_UNITS || -units >= MAX_BOUND_UNITS) {
    throw new Error(
      `the plant field ${name}: ${bound} is no bound of at most ${field.decimals} decimals and 15 significant digits (every value within is then exact in a float64)`,
    );
  }
  return units;
}

/** Throws, naming the field, when its entry cannot be written and read back exactly. */
function checkField(name: string, field: PlantField): void {
  const type = (field as { type?: unknown }).type;
  if (type === 'string') {
    const { maxLength } = field as TextField;
    if (!Number.isSafeInteger(maxLength) || maxLength < 0) {
      throw new Error(`the plant field ${name}: maxLength must be a whole number`);
    }
    return;
  }
  if (type === 'boolean') return;
  if (type !== 'number') {
    throw new Error(
      `the plant field ${name} has the type ${String(type)}: a field is a string, a number or a boolean`,
    );
  }
  const number = field as NumberField;
  if (!Number.isInteger(number.decimals) || number.decimals < 0 || number.decimals > 6) {
    throw new Error(`the plant field ${name}: decimals must be a whole number from 0 to 6`);
  }
  const min = boundUnits(name, number, number.minimum);
  const max = boundUnits(name, number, number.maximum);
  if (min > max) throw new Error(`the plant field ${name}: minimum is above maximum`);
}

/** A number field's value schema: the literal judged exactly, then the number it denotes. */
function numberSchema(name: string, field: NumberField, bounded: boolean) {
  const rule = numberRule(field);
  const min = boundUnits(name, field, field.minimum);
  const max = boundUnits(name, field, field.maximum);
  const exact = v.rawTransform<unknown, number>(({ dataset, addIssue, NEVER }) => {
    const input = dataset.value;
    const literal =
      typeof input === 'bigint'
        ? input.toString()
        : input instanceof JsonNumber
          ? input.literal
          : // A caller in-process (a test, a handler given a number) passes a float64: its shortest text.
            typeof input === 'number' && Number.isFinite(input)
            ? String(input)
            : undefined;
    const scaled = literal === undefined ? undefined : scaledOf(literal, field.decimals);
    if (typeof scaled !== 'object' || scaled.units < min || scaled.units > max) {
      addIssue({ message: rule });
      return NEVER;
    }
    return Number(`${scaled.units}e-${field.decimals}`);
  });
  if (!bounded) {
    return v.pipe(
      v.number(rule),
      v.description<number, string>(field.description),
      v.examples<number, number[]>([field.example]),
    );
  }
  return v.pipe(
    v.unknown(),
    exact,
    v.number(),
    v.minValue<number, number>(field.minimum),
    v.maxValue<number, number>(field.maximum),
    // JSON Schema's words for "at most `decimals` decimals" (1 for an integer).
    v.metadata({ multipleOf: Number(`1e-${field.decimals}`) }),
    v.description<number, string>(field.description),
    v.examples<number, number[]>([field.example]),
  );
}

/**
 * A field's value schema: bounded as a create, a replacement or a patch takes it and a create
 * answers it, or unbounded as the reads answer a stored value (a plant stored before a limit
 * existed is read as it is).
 */
export function valueSchema<F extends PlantField>(
  name: string,
  field: F,
  bounded: boolean,
): ValueSchema<F> {
  checkField(name, field);
  const schema: PlantField = field;
  switch (schema.type) {
    case 'string':
      return v.pipe(
        v.string(STRING_RULE),
        ...(bounded
          ? [v.maxCodePoints(schema.maxLength, `must be at most ${schema.maxLength} characters`)]
          : []),
        v.description<string, string>(schema.description),
        v.examples<string, string[]>([schema.example]),
      ) as unknown as ValueSchema<F>;
    case 'number':
      return numberSchema(name, schema, bounded) as unknown as ValueSchema<F>;
    case 'boolean':
      return v.pipe(
        v.boolean(BOOLEAN_RULE),
        v.description<boolean, string>(schema.description),
        v.examples<boolean, boolean[]>([schema.example]),
      ) as unknown as ValueSchema<F>;
  }
}

const DYNAMODB_NUMBER = /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/**
 * An item's attribute as the field's value: a DynamoDB number (read as `NumberValue`, its exact
 * text) as the number it denotes; anything else as it is, for the stored schema to judge.
 */
export function storedValue(field: PlantField, attribute: unknown): unknown {
  if (field.type !== 'number' || typeof attribute !== 'object' || attribute === null) {
    return attribute;
  }
  const text = String(attribute);
  return DYNAMODB_NUMBER.test(text) ? Number(text) : attribute;
}

/** The field's rule in the OpenAPI document's words: `a string of at most 100 characters`. */
export function ruleInWords(field: PlantField): string {
  switch (field.type) {
    case 'string':
      return `a string of at most ${field.maxLength} characters`;
    case 'number':
      return numberRule(field).replace(/^must be /, '');
    case 'boolean':
      return '`true` or `false`';
  }
}
