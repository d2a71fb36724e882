/**
 * Each subscriber's pace, shared by every deliverer invocation: requests to a subscriber start
 * only on its grid, one slot every `1.25 / rate` s (`k × spacing` from the epoch of time), and
 * each slot is granted to one sandbox at most, so that a receiver counting arrivals per second
 * never counts more than its rate, however many sandboxes send, even when the network and a busy
 * deliverer bunch them by up to a fifth of the spacing. The grid is granted a quarter second (an
 * epoch) at a time, up to four at once: one conditional write adds to each epoch's count of
 * slots granted, and the counts granted map to slots spread over the whole epoch, so one write
 * serves every batch a sandbox handles in the next second. A receiver that answers 429, 502,
 * 504 or not at all halves its rate (down to one request a minute), and its successes double it
 * back; a `Retry-After` holds all its deliveries until then.
 */

/**
 * Requests a second a subscriber receives unless `--rate` says otherwise: the stage's burst
 * limit, so that the default never holds back what the API can store (at most 100 creates in a
 * burst, 50 a second after it).
 */
export const DEFAULT_RATE_PER_SECOND = 100;

/**
 * The rates `--rate` accepts, per second. A rate is a bound on any second; a backlog drains at
 * `sustainedRate` (80 % of it: 800 a second at the maximum, which docs/capacity.md models).
 */
export const RATE_LIMITS = { min: 0.01, max: 1_000 } as const;

/** The slowest a slowed-down subscriber gets: one request a minute. */
export const SLOWEST_RATE_PER_SECOND = 1 / 60;

/** The spacing's margin over `1 / rate`. */
const SPACING_MARGIN = 1.25;

/**
 * How far ahead a sandbox uses slots: a granted start waits in the invocation (up to this long),
 * the rest go back to the queue. Short, so that a slow subscriber holds few invocations; and what
 * a sandbox knows of a subscriber is never older than this when it sends.
 */
export const RESERVE_AHEAD_MS = 2_000;

/** The grid is counted in epochs of a quarter second. */
export const PACE_EPOCH_MS = 250;

/** One grant covers up to this many epochs from the next one: a second of the grid. */
export const GRANT_EPOCHS = 4;

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
  /** Epoch ms before which no request may start (a `Retry-After` hold). @default - now */
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

/**
 * Milliseconds between two request starts at `rate` per second, rounded up to the microsecond
 * (every sandbox computes the same grid from it, and rounding up never brings starts closer).
 */
export function spacingMs(rate: number): number {
  return Math.ceil((1_000_000 * SPACING_MARGIN) / rate) / 1000;
}

/**
 * The requests a second a subscriber at `rate` receives while deliveries wait for it (its grid's
 * slots a second, 0.8 × `rate`), to three significant figures.
 */
export function sustainedRate(rate: number): number {
  return Number((1000 / spacingMs(rate)).toPrecision(3));
}

/** The slots of one epoch of the grid at `spacing`: indices `first` to `first + count - 1`. */
export interface EpochSlots {
  readonly epoch: number;
  readonly spacing: number;
  readonly first: number;
  readonly count: number;
}

/** The grid slots at `spacing` that start within `epoch` (possibly none, below 1.25 a second). */
export function epochSlots(epoch: number, spacing: number): EpochSlots {
  const first = Math.ceil((epoch * PACE_EPOCH_MS) / spacing);
  const end = Math.ceil(((epoch + 1) * PACE_EPOCH_MS) / spacing);
  return { epoch, spacing, first, count: end - first };
}

/** The epoch of the first slot at `spacing` that starts at or after `at` (epoch ms). */
export function epochOfNextSlot(at: number, spacing: number): number {
  return Math.floor((Math.ceil(at / spacing) * spacing) / PACE_EPOCH_MS);
}

/**
 * The start times of the slots granted as the epoch's counts `from` to `from + n - 1`, in time
 * order. Count `c` is slot `c × step mod count`, `step` about 0.618 of `count` and prime to it:
 * a bijection (disjoint counts are disjoint slots), and any run of counts is spread evenly over
 * the second (the golden-ratio sequence), so a sandbox's grant serves its batches all through it.
 */
export function grantedStarts(slots: EpochSlots, from: number, n: number): number[] {
  const { first, count, spacing } = slots;
  const step = spreadingStep(count);
  const starts: number[] = [];
  for (let c = from; c < from + n && c < count; c++) {
    starts.push((first + ((c * step) % count)) * spacing);
  }
  return starts.sort((a, b) => a - b);
}

/** The integer nearest 0.618 × `count` that is prime to it (1 for 1 and 2). */
function spreadingStep(count: number): number {
  if (count <= 2) return 1;
  const golden = Math.round(count * 0.6180339887);
  for (let d = 0; ; d++) {
    for (const step of [golden + d, golden - d]) {
      if (step > 0 && step < count && gcd(step, count) === 1) return step;
    }
  }
}

function gcd(a: number, b: number): number {
  while (b) [a, b] = [b, a % b];
  return a;
}
