/**
 * The size and unit figures `plantFigures()` computes from the schema's limits, which the
 * `plant-size` block writes into the docs: the attributes add up to the item, and the units
 * follow from it by DynamoDB's rounding.
 */
import { plantFigures } from '../../../lib/generators/plant-figures';
import { PLANT_ATTRIBUTES } from '../../../lambda/plants/item';

const f = plantFigures();

it('computes the largest item from the limits: the attributes sum to it', () => {
  expect(f.attributes.reduce((sum, a) => sum + a.nameBytes + a.valueBytes, 0)).toBe(f.itemBytes);
  expect(f.writeUnits).toBe(Math.ceil(f.itemBytes / 1024));
  expect(f.pageReadUnits).toBe(Math.ceil((f.pagePlants * f.itemBytes) / 4096));
});

it('counts every attribute a live plant can hold (only a tombstone has deletedAt; none sets purgeAt)', () => {
  const counted = f.attributes.map((a) => a.attribute);
  const { deletedAt, purgeAt, ...live } = PLANT_ATTRIBUTES;
  expect([deletedAt, purgeAt].filter((name) => counted.includes(name))).toEqual([]);
  expect(Object.values(live).filter((name) => !counted.includes(name))).toEqual([]);
});
