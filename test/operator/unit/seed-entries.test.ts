/**
 * `npm run state -- seed` reads its file as the API reads a body: a number field judges the
 * decimal the file wrote, never the float64 nearest to it, so a seed accepts what POST accepts.
 */
import * as v from 'valibot';
import { valueSchema, type PlantField } from '../../../lambda/plants/field-types';
import { seedEntries } from '../../../lib/operator/state/seed';

const PRICE: PlantField = {
  type: 'number',
  required: false,
  minimum: 0,
  maximum: 1_000_000,
  decimals: 2,
  description: 'The price of the plant',
  example: 19.99,
};

it('keeps each number as its literal, so a number field refuses one of too many decimals', () => {
  const [entry] = seedEntries(
    '[{"id":9223372036854775807,"name":"Ivy","price":19.999999999999999999}]',
  );
  const { id, price } = entry as { id: unknown; price: unknown };
  expect(id).toBe(9223372036854775807n);
  const schema = valueSchema('price', PRICE, true);
  expect(v.safeParse(schema, price).success).toBe(false);
  const [fine] = seedEntries('{"plants":[{"id":1,"name":"Ivy","price":19.99}]}');
  expect(v.parse(schema, (fine as { price: unknown }).price)).toBe(19.99);
});

it('names a file that is not JSON, or not a list of plants', () => {
  expect(() => seedEntries('[', 'f.json')).toThrow(/^f\.json is not JSON/);
  expect(() => seedEntries('{"plant":[]}', 'f.json')).toThrow(/f\.json must be a JSON array/);
});
