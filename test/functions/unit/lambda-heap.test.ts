/** The heap limits local sandboxes get: Lambda's own for the function's memory setting. */
import { FUNCTIONS, FUNCTION_NAMES } from '../../../lib/definitions/functions';
import { lambdaHeapFlags } from '../../../lib/definitions/lambda-node';

it('gives 256 MB the limits Lambda starts Node with', () => {
  expect(lambdaHeapFlags(256)).toEqual(['--max-semi-space-size=12', '--max-old-space-size=231']);
});

it.each(FUNCTION_NAMES)('%s: the flags never exceed its memory', (name) => {
  const memory = FUNCTIONS[name].memorySize;
  const [semi, old] = lambdaHeapFlags(memory).map((flag) => Number(flag.split('=')[1]));
  expect(semi! * 2 + old!).toBeLessThanOrEqual(memory);
});
