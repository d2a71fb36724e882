/**
 * The per-request figures docs/capacity.md is computed from are what the bench measures now: the
 * DynamoDB capacity units and the bytes each function logs, on the real handlers and the local
 * engine. A new log field or a second DynamoDB call fails this until `lib/generators/capacity/inputs.ts`
 * (and the page, through `npm run capacity`) says so. Times are the bench's to print, not asserted.
 * An operation not yet measured has a stated default (descriptors.test.ts names the command).
 */
import { DEFAULTED } from '../../../lib/generators/capacity/costs';
import { MEASURED } from '../../../lib/generators/capacity/inputs';
import { measureRequestCosts } from '../../../lib/lab/bench/per-request';

it('capacity units and bytes logged per function match the inputs', async () => {
  const measured = await measureRequestCosts(5);
  const defaulted = DEFAULTED.map((op) => op.function as string);
  expect(
    Object.fromEntries(
      measured
        .filter((c) => !defaulted.includes(c.name))
        .map((c) => [c.name, { bytesLogged: c.bytesLogged, units: c.capacityUnits }]),
    ),
  ).toEqual(
    Object.fromEntries(
      Object.entries(MEASURED.request.functions).map(([name, f]) => [
        name,
        { bytesLogged: f.bytesLogged, units: f.units },
      ]),
    ),
  );
});
