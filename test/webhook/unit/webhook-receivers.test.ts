/**
 * What receivers say, in pure terms: `Retry-After` read as seconds or a date and cut to 12 h,
 * the per-subscriber pace (spacing, slowdown, reservations), and which answers slow a
 * subscriber down or disable it.
 */
import { asksToSlowDown, attemptText, isGone, statusText } from '../../../lambda/webhook/health';
import {
  currentRate,
  DEFAULT_RATE_PER_SECOND,
  maxSlowdown,
  reserve,
  RESERVE_AHEAD_MS,
  SLOWEST_RATE_PER_SECOND,
  spacingMs,
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
  it('spaces requests 25 % wider than the rate, so no second holds more than the rate', () => {
    expect(spacingMs(10)).toBeCloseTo(125);
    const { starts } = reserve({ rate: 10 }, 100, NOW);
    // Any window of one second holds at most 10 starts.
    for (const start of starts) {
      expect(starts.filter((s) => s >= start && s < start + 1000).length).toBeLessThanOrEqual(10);
    }
  });

  it('reserves only what starts within the reservation window, and says when the rest may', () => {
    const reservation = reserve({ rate: 5 }, 30, NOW);
    const spacing = spacingMs(5);
    expect(reservation.starts.length).toBe(Math.floor(RESERVE_AHEAD_MS / spacing) + 1);
    expect(reservation.starts[0]).toBe(NOW);
    expect(reservation.nextSendAt).toBe(Math.ceil(NOW + reservation.starts.length * spacing));
    expect(reservation.laterAt(0)).toBe(reservation.nextSendAt);
    expect(reservation.laterAt(3)).toBe(reservation.nextSendAt + 3 * spacing);
  });

  it('starts after the time another invocation reserved, and reserves nothing far beyond now', () => {
    const taken = reserve({ rate: 50, nextSendAt: NOW + 500 }, 3, NOW);
    expect(taken.starts[0]).toBe(NOW + 500);
    const paused = reserve({ rate: 50, nextSendAt: NOW + 60_000 }, 3, NOW);
    expect(paused.starts).toEqual([]);
    expect(paused.nextSendAt).toBe(NOW + 60_000);
    expect(paused.laterAt(0)).toBe(NOW + 60_000);
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
