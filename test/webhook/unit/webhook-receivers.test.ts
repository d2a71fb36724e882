/**
 * What receivers say, in pure terms: `Retry-After` read as seconds or a date and cut to 12 h,
 * the per-subscriber pace (spacing, slowdown, the grid's seconds and how their granted counts
 * map to slots), and which answers slow a subscriber down or disable it.
 */
import { asksToSlowDown, attemptText, isGone, statusText } from '../../../lambda/webhook/health';
import {
  currentRate,
  DEFAULT_RATE_PER_SECOND,
  epochOfNextSlot,
  epochSlots,
  grantedStarts,
  maxSlowdown,
  PACE_EPOCH_MS,
  RATE_LIMITS,
  SLOWEST_RATE_PER_SECOND,
  spacingMs,
  sustainedRate,
} from '../../../lambda/webhook/rate-limit';
import { MAX_RETRY_AFTER_SECONDS, retryAfterSeconds } from '../../../lambda/webhook/retry-after';

const NOW = Date.parse('2026-11-25T08:00:00Z');

describe('Retry-After', () => {
  it.each([
    ['120', 120],
    [' 5 ', 5],
    ['0', 1],
    ['20000', 20_000],
    ['43201', MAX_RETRY_AFTER_SECONDS],
    ['999999999', MAX_RETRY_AFTER_SECONDS],
    ['Wed, 25 Nov 2026 08:02:00 GMT', 120],
    ['Wed, 25 Nov 2026 08:00:00.5 GMT', 1],
    ['Tue, 24 Nov 2026 08:00:00 GMT', 1],
    ['Fri, 27 Nov 2026 08:00:00 GMT', MAX_RETRY_AFTER_SECONDS],
  ])('%p waits %p s', (value, seconds) => {
    expect(retryAfterSeconds(value, NOW)).toBe(seconds);
  });

  it.each([undefined, '', 'soon', '-5', '1.5', '2026-11-25', 'Wed, 32 Nov 2026 08:00:00 GMT'])(
    'ignores %p',
    (value) => {
      expect(retryAfterSeconds(value, NOW)).toBeUndefined();
    },
  );
});

describe('pace', () => {
  /** The starts of `grants` (counts of the second's slots, in the order granted) of `epoch`. */
  const starts = (epoch: number, spacing: number, grants: number[]) => {
    const slots = epochSlots(epoch, spacing);
    let from = 0;
    return grants.map((n) => {
      const granted = grantedStarts(slots, from, n);
      from += n;
      return granted;
    });
  };

  it("says what a rate gives a backlog: the grid's slots a second, 800 at the maximum", () => {
    const epoch = Math.floor(NOW / PACE_EPOCH_MS);
    for (const rate of [RATE_LIMITS.max, DEFAULT_RATE_PER_SECOND, 10, 3]) {
      // The slots of 40 seconds of the grid, a second's worth.
      const slots = Array.from({ length: 160 }, (_, k) => epochSlots(epoch + k, spacingMs(rate)));
      const perSecond = slots.reduce((sum, { count }) => sum + count, 0) / 40;
      expect(sustainedRate(rate)).toBeCloseTo(perSecond, 1);
    }
    expect(sustainedRate(RATE_LIMITS.max)).toBe(800);
    expect(sustainedRate(DEFAULT_RATE_PER_SECOND)).toBe(80);
  });

  it('spaces the grid 25 % wider than the rate, so no second holds more than the rate', () => {
    expect(spacingMs(10)).toBeCloseTo(125);
    expect(spacingMs(3)).toBe(416.667);
    const epoch = Math.floor(NOW / PACE_EPOCH_MS);
    // Every slot of three seconds (two an epoch), granted to two sandboxes an epoch.
    const all = Array.from({ length: 12 }, (_, k) => epoch + k)
      .flatMap((e) => starts(e, spacingMs(10), [1, 1]).flat())
      .sort((a, b) => a - b);
    expect(all).toHaveLength(24);
    expect(new Set(all).size).toBe(24);
    for (const start of all) {
      expect(all.filter((s) => s >= start && s < start + 1000).length).toBeLessThanOrEqual(10);
    }
  });

  it("spreads each grant over the whole epoch, and grants disjoint slots of the epoch's grid", () => {
    const epoch = Math.floor(NOW / PACE_EPOCH_MS) + 1;
    const spacing = spacingMs(400);
    const slots = epochSlots(epoch, spacing);
    expect(slots.count).toBe(80);
    const grants = starts(epoch, spacing, [10, 30, 40]);
    const all = grants.flat();
    expect(new Set(all).size).toBe(80);
    for (const start of all) {
      expect(start).toBeGreaterThanOrEqual(epoch * PACE_EPOCH_MS);
      expect(start).toBeLessThan((epoch + 1) * PACE_EPOCH_MS);
      // On the grid: a whole number of spacings from the epoch of time.
      expect(Math.abs(start / spacing - Math.round(start / spacing))).toBeLessThan(1e-6);
    }
    // The first ten (one batch's grant) reach into each quarter of the epoch.
    const quarter = PACE_EPOCH_MS / 4;
    const quarters = new Set(grants[0]!.map((s) => Math.floor((s % PACE_EPOCH_MS) / quarter)));
    expect(quarters).toEqual(new Set([0, 1, 2, 3]));
    // Counts past the second's slots grant nothing.
    expect(grantedStarts(slots, 78, 5)).toHaveLength(2);
  });

  it('finds the next second with a slot when the rate is under 1.25 a second', () => {
    const spacing = spacingMs(0.1); // 12.5 s
    const epoch = epochOfNextSlot(NOW, spacing);
    const slots = epochSlots(epoch, spacing);
    expect(slots.count).toBe(1);
    expect(slots.first * spacing).toBeGreaterThanOrEqual(NOW);
    expect(slots.first * spacing - NOW).toBeLessThan(spacing);
    expect(epochSlots(epoch + 1, spacing).count).toBe(0);
  });

  it('halves the rate per slowdown, never below one a minute, and defaults to 100 a second', () => {
    expect(currentRate({})).toBe(DEFAULT_RATE_PER_SECOND);
    expect(currentRate({ rate: 8, slowdown: 2 })).toBe(2);
    expect(currentRate({ rate: 8, slowdown: 40 })).toBe(SLOWEST_RATE_PER_SECOND);
    expect(currentRate({ rate: 0.01, slowdown: 3 })).toBe(0.01);
    expect(currentRate({ rate: 8, slowdown: maxSlowdown(8) })).toBeCloseTo(
      SLOWEST_RATE_PER_SECOND,
      2,
    );
  });
});

describe('health', () => {
  it('reads 410 as gone and nothing else', () => {
    expect(isGone({ status: 410 })).toBe(true);
    expect([{ status: 404 }, { status: 200 }, { failure: 'ECONNREFUSED' }].map(isGone)).toEqual([
      false,
      false,
      false,
    ]);
  });

  it('slows down on 429, 502, 504 and timeouts, not on other failures', () => {
    const slow = [
      { status: 429 },
      { status: 502 },
      { status: 504 },
      { failure: 'no answer within 10 s' },
    ];
    const other = [
      { status: 500 },
      { status: 503 },
      { status: 410 },
      { failure: 'connect ECONNREFUSED' },
    ];
    expect(slow.map(asksToSlowDown)).toEqual([true, true, true, true]);
    expect(other.map(asksToSlowDown)).toEqual([false, false, false, false]);
  });

  it('names statuses as list and attempts print them', () => {
    expect(statusText(410)).toBe('410 Gone');
    expect(statusText(418)).toBe('418');
    expect(attemptText({ status: 429 })).toBe('429 Too Many Requests');
    expect(attemptText({ failure: 'connect ECONNREFUSED 127.0.0.1:9' })).toBe(
      'connect ECONNREFUSED 127.0.0.1:9',
    );
  });
});
