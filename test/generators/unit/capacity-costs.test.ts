/**
 * An operation the bench has not measured yet gets, in the capacity model, the figures of its
 * most similar measured operation (same method and plants-table actions, else the same actions,
 * else the same method; of several, the slowest), named as such, until `npm run bench -- --phases
 * request --write-measurements` measures it.
 */
jest.mock('../../../lib/generators/capacity/inputs', () => {
  const actual = jest.requireActual('../../../lib/generators/capacity/inputs');
  // Figures of the test's own, get-plant and update-plant left out.
  const figures = (ms: number) => ({ ms, bytesLogged: 400, units: 1 });
  const functions = {
    authorizer: figures(2),
    'create-plant': figures(3),
    'list-plants': figures(5),
    'patch-plant': figures(4),
    'delete-plant': figures(6),
  };
  return {
    ...actual,
    MEASURED: { ...actual.MEASURED, request: { ...actual.MEASURED.request, functions } },
  };
});
import { billedMs, costOf, DEFAULTED } from '../../../lib/generators/capacity/costs';
import { MEASURED } from '../../../lib/generators/capacity/inputs';
import { capacityBlocks } from '../../../lib/generators/capacity/tables';

const measured = MEASURED.request.functions as Record<string, { ms: number }>;

it('lists the operations whose cost is a default', () => {
  const defaulted = DEFAULTED.map((op) => op.function);
  expect(defaulted).toEqual(expect.arrayContaining(['get-plant', 'update-plant']));
  expect(defaulted.filter((name) => measured[name])).toEqual([]);
});

it('gives a PUT, none measured, the slowest of the measured with its table actions (delete-plant)', () => {
  // patch-plant and delete-plant both call UpdateItem and GetItem; delete-plant is the slower.
  expect(measured['delete-plant']!.ms).toBeGreaterThan(measured['patch-plant']!.ms);
  expect(costOf('update-plant')).toEqual({
    ...measured['delete-plant'],
    defaultOf: 'delete-plant',
  });
});

it('gives a read with no alike measured operation the slowest of its method (list-plants)', () => {
  expect(costOf('get-plant')).toEqual({ ...measured['list-plants'], defaultOf: 'list-plants' });
  expect(billedMs('get-plant')).toBe(billedMs('list-plants'));
});

it('keeps measured figures as measured, and has none for a function that is no operation', () => {
  expect(costOf('create-plant')).toBe(measured['create-plant']);
  expect(() => costOf('fan-out')).toThrow('capacity: no measured cost for fan-out');
});

it('names, in the measured table, each operation without a measurement and whose figures stand in', () => {
  expect(capacityBlocks()['capacity-measured']).toContain(
    "| get-plant (not measured: list-plants's figures) |",
  );
});
