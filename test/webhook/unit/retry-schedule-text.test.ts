/**
 * The retry schedule as `npm start -- --help`, the banner and the docs say it: made from the
 * schedule itself, at any scale, so that no figure can drift from the delays the deliverer waits.
 */
import { durationText, retryScheduleText } from '../../../lib/definitions/webhooks';
import { START_HELP } from '../../../lib/local/process/options';
import { HORIZON_SECONDS, RETRY_DELAYS_SECONDS } from '../../../lambda/webhook/schedule';

it('says durations exact to the second, in the units people use', () => {
  expect([0.05, 3, 2.5, 72, 300, 2_793.05, 7_200, 279_305].map(durationText)).toEqual([
    '50 ms',
    '3 s',
    '2.5 s',
    '1 min 12 s',
    '5 min',
    '46 min 33 s',
    '2 h',
    '77 h 35 min',
  ]);
});

it('says each delay of the schedule, a run once, and the horizon', () => {
  expect(retryScheduleText()).toBe(
    '5 s, 5 min, 30 min, 2 h, 5 h, then 10 h × 7 (77 h 35 min in all)',
  );
  expect(retryScheduleText(0.01)).toBe(
    '50 ms, 3 s, 18 s, 1 min 12 s, 3 min, then 6 min × 7 (46 min 33 s in all)',
  );
  // Every delay is there: the runs add up to the schedule's length and its sum.
  const counted = [...retryScheduleText().matchAll(/× (\d+)/g)].map((m) => Number(m[1]) - 1);
  const said = retryScheduleText().split(' (')[0]!.split(', ').length;
  expect(said + counted.reduce((a, b) => a + b, 0)).toBe(RETRY_DELAYS_SECONDS.length);
  expect(retryScheduleText()).toContain(`(${durationText(HORIZON_SECONDS)} in all)`);
});

it("is what npm start's help says of PLANT_STORE_WEBHOOK_RETRY_SCALE", () => {
  const help = START_HELP.replace(/\s+/g, ' ');
  expect(help).toContain(`(0.01: ${retryScheduleText(0.01)})`);
});
