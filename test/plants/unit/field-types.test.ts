/**
 * An entry of `PLANT_FIELDS` that cannot be written and read back exactly is refused when the
 * schemas are built (every test that loads them fails), never found by stored data; and a number
 * field judges the decimal a request wrote, not the float64 nearest to it.
 */
import * as v from 'valibot';
import { JsonNumber } from '../../../lambda/http/json';
import { valueSchema, type PlantField } from '../../../lambda/plants/field-types';

const PRICE: PlantField = {
  type: 'number',
  required: false,
  minimum: 0,
  maximum: 1_000_000,
  decimals: 2,
  description: 'The price of the plant',
  example: 19.99,
};

it.each([
  ['a type no mapping knows', { ...PRICE, type: 'date' }, /has the type date/],
  ['a bound with more decimals than allowed', { ...PRICE, minimum: 0.001 }, /0.001 is no bound/],
  ['a bound a float64 cannot hold in units', { ...PRICE, maximum: 2 ** 53 }, /is no bound/],
  // 16 digits in units: 83601107875674.01 would come out of a float64 as 83601107875674.02.
  ['a bound of 10^15 units', { ...PRICE, maximum: 1e13 }, /: 10000000000000 is no bound/],
  ['a minimum of -10^15 units', { ...PRICE, minimum: -1e13 }, /-10000000000000 is no bound/],
  ['a bound of 16 digits', { ...PRICE, maximum: 90_000_000_000_000 }, /is no bound/],
  ['a minimum above the maximum', { ...PRICE, minimum: 5, maximum: 1 }, /minimum is above/],
  ['decimals that are no whole number', { ...PRICE, decimals: 1.5 }, /decimals must be/],
  ['a string with no maxLength', { type: 'string', required: false }, /maxLength must be/],
])('an entry with %s is refused, naming the field', (_, entry, message) => {
  expect(() => valueSchema('price', entry as PlantField, true)).toThrow(message);
  expect(() => valueSchema('price', entry as PlantField, true)).toThrow(/the plant field price/);
});

it('takes bounds of up to 15 significant digits in units', () => {
  const widest = { ...PRICE, minimum: -9_999_999_999_999.99, maximum: 9_999_999_999_999.99 };
  const schema = valueSchema('price', widest as PlantField, true);
  expect(v.parse(schema, new JsonNumber('9999999999999.99'))).toBe(9_999_999_999_999.99);
});

describe('a number field', () => {
  const schema = valueSchema('price', PRICE, true);
  const read = (input: unknown) => v.safeParse(schema, input);

  it.each([
    [new JsonNumber('19.99'), 19.99],
    [new JsonNumber('1999e-2'), 19.99],
    [new JsonNumber('20.000'), 20],
    [20n, 20],
    [0n, 0],
    [new JsonNumber('1e6'), 1_000_000],
  ])('takes %p as %p', (input, output) => {
    expect(read(input)).toMatchObject({ success: true, output });
  });

  it.each([
    new JsonNumber(String(0.1 + 0.2)),
    new JsonNumber('19.990000000000000001'),
    new JsonNumber('1e-400'),
    new JsonNumber('1e400'),
    -1n,
    1_000_001n,
    '19.99',
    true,
    null,
  ])('refuses %p with its rule', (input) => {
    const result = read(input);
    expect(result.success).toBe(false);
    expect(result.issues?.[0]?.message).toBe(
      'must be a number from 0 to 1000000 with at most 2 decimals',
    );
  });
});
