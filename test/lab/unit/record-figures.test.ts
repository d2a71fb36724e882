/** A phase records its figures only when asked to and only when every request was answered 200. */
import { readFileSync } from 'node:fs';
import { recordFigures } from '../../../lib/lab/bench/measure';
import { MEASUREMENTS_FILE } from '../../../lib/lab/measurements';

const context = (writeMeasurements: boolean) => ({
  writeMeasurements,
  print: jest.fn(),
  fail: jest.fn(),
});

it('records nothing and fails the run when a request was not answered 200', () => {
  const before = readFileSync(MEASUREMENTS_FILE, 'utf8');
  const asked = context(true);
  const figures = jest.fn();
  recordFigures(asked, 'cpu', figures, 3);
  expect(asked.fail).toHaveBeenCalledWith(
    'cpu: 3 requests were not answered 200; nothing recorded',
  );
  expect(figures).not.toHaveBeenCalled();
  expect(readFileSync(MEASUREMENTS_FILE, 'utf8')).toBe(before);
});

it('does nothing without --write-measurements', () => {
  const unasked = context(false);
  const figures = jest.fn();
  recordFigures(unasked, 'offline', figures);
  expect(figures).not.toHaveBeenCalled();
  expect(unasked.fail).not.toHaveBeenCalled();
  expect(unasked.print).not.toHaveBeenCalled();
});
