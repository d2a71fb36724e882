/**
 * Each subscriber's pace, shared by every deliverer invocation through one attribute of its
 * item (`nextSendAt`, the earliest time the next request may start: a GCRA without burst).
 * A batch reserves the sends it may start soon with one conditional write; the others wait in
 * the queue, spending no attempt. Requests to a subscriber start at least `1.25 / rate` s apart,
 * so that a receiver counting arrivals per second never counts more than its rate even when the
 * network and a busy deliverer bunch them by up to a fifth of the spacing. A receiver that answers 429, 502, 504 or
 * not at all halves its rate (down to one request a minute), and its successes double it back;
 * a `Retry-After` holds all its deliveries until then.
 */

/**
 * Requests a second a subscriber receives unless `--rate` says otherwise: the stage's burst
 * limit, so that the default never holds back what the API can store (at most 100 creates in a
 * burst, 50 a second after it).
 */
export const DEFAULT_RATE_PER_SECOND = 100;

/** The rates `--rate` accepts, per second. */
export const RATE_LIMITS = { min: 0.01, max: 1_000 } as const;

/** The slowest a slowed-down subscriber gets: one request a minute. */
export const SLOWEST_RATE_PER_SECOND = 1 / 60;

/** The spacing's margin over `1 / rate`. */
const SPACING_MARGIN = 1.25;

/**
 * How far ahead a batch reserves sends: a reserved send waits in the invocation (up to this
 * long), the rest go back to the queue. Short, so that a slow subscriber holds few invocations.
 */
export const RESERVE_AHEAD_MS = 2_000;

/**
 * How late a reserved request may start: later, it is not sent (it waits its turn again). Any
 * `rate + 1` starts in a row are planned `1.25 s` apart end to end, and only the first one's
 * lateness brings them closer: 150 ms late still leaves them over a second apart, with 100 ms
 * for what the network adds.
 */
export const START_TOLERANCE_MS = 150;

/** What the subscriber's item says about its pace. */
export interface Pace {
  /** The rate set with `--rate`, per second. @default DEFAULT_RATE_PER_SECOND */
  readonly rate?: number;
  /** How many times its rate is halved (429, 502, 504, timeouts). @default 0 */
  readonly slowdown?: number;
  /** Epoch ms before which no request may start. @default - now */
  readonly nextSendAt?: number;
}

/** The requests per second a subscriber receives now, slowdown included. */
export function currentRate(pace: Pace): number {
  const rate = pace.rate ?? DEFAULT_RATE_PER_SECOND;
  return Math.max(Math.min(rate, SLOWEST_RATE_PER_SECOND), rate / 2 ** (pace.slowdown ?? 0));
}

/** The most halvings that still leave at least `SLOWEST_RATE_PER_SECOND`. */
export function maxSlowdown(rate = DEFAULT_RATE_PER_SECOND): number {
  return Math.max(0, Math.ceil(Math.log2(rate / SLOWEST_RATE_PER_SECOND)));
}

/** Milliseconds between two request starts at `rate` per second. */
export function spacingMs(rate: number): number {
  return (1000 * SPACING_MARGIN) / rate;
}

/** A batch's reservation: when each reserved request starts, and when the rest may come back. */
export interface Reservation {
  /** Start times (epoch ms) of the first `starts.length` requests, in order. */
  readonly starts: readonly number[];
  /** The new `nextSendAt` to write (conditionally on the one read). */
  readonly nextSendAt: number;
  /** For the requests beyond: epoch ms at which the i-th of them could start, if all went well. */
  readonly laterAt: (index: number) => number;
}

/** Reserves up to `wanted` request starts at `pace` from `now`, within `RESERVE_AHEAD_MS`. */
export function reserve(pace: Pace, wanted: number, now: number): Reservation {
  const spacing = spacingMs(currentRate(pace));
  const first = Math.max(now, pace.nextSendAt ?? now);
  const fits =
    first > now + RESERVE_AHEAD_MS ? 0 : Math.floor((now + RESERVE_AHEAD_MS - first) / spacing) + 1;
  const count = Math.min(wanted, fits);
  const starts = Array.from({ length: count }, (_, i) => first + i * spacing);
  // Whole ms: the next reservation's condition compares it exactly.
  const nextSendAt = Math.ceil(first + count * spacing);
  return { starts, nextSendAt, laterAt: (index) => nextSendAt + index * spacing };
}
