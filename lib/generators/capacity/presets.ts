/**
 * The capacity presets as the model asks for them: a stage throttle above the rate, and for each
 * function that reserves concurrency, enough for the throttle (`CAPACITY_PRESETS` in
 * lib/infra/stages.ts holds the figures; test/generators/unit/capacity.test.ts checks them).
 */
import type { FunctionName } from '../../definitions/functions';
import { billedMs } from './costs';
import { QUOTAS } from './inputs';

/** A capacity preset's stage throttle, as a multiple of the rate it is for (its burst is one second of it). */
export const THROTTLE_HEADROOM = 1.2;

/**
 * The functions a capacity preset reserves concurrency for. Not the authorizer: its load follows
 * the distinct tokens, not the creates, and a cap would answer 500 to valid tokens.
 */
export const RESERVED_FUNCTIONS = ['create-plant'] as const satisfies readonly FunctionName[];

/** A reservation holds this many times the modelled concurrency: a slowdown to 3× is still served. */
export const RESERVE_SLOWDOWN = 3;

/** What a capacity preset sets on top of a stage (`CAPACITY_PRESETS` in lib/infra/stages.ts). */
export interface Preset {
  readonly throttlingRateLimit: number;
  readonly throttlingBurstLimit: number;
  readonly reservedConcurrency: Readonly<Record<(typeof RESERVED_FUNCTIONS)[number], number>>;
}

/** The rates a capacity preset exists for (`-c capacity=1k|10k|100k`); below them, none is deployed. */
export const PRESET_RATES = [1_000, 10_000, 100_000] as const;

/**
 * The preset for `rate` requests a second: the throttle at 1.2 × the rate, burst the same; each
 * reserved function gets 3 × the concurrency it would run at if every request were its own,
 * and at least a tenth of what the throttle lets through to it (Lambda invokes a function at
 * most 10 times its concurrency a second), so the reservation never caps it below the throttle.
 */
export function presetFor(rate: number): Preset {
  const throttle = THROTTLE_HEADROOM * rate;
  const perConcurrency = QUOTAS.lambdaFunctionRequestsPerConcurrency.value;
  const reserve = (name: FunctionName) =>
    Math.max(
      Math.ceil((RESERVE_SLOWDOWN * rate * billedMs(name)) / 1000),
      // Every request the throttle lets through may be one of this function's.
      Math.ceil(throttle / perConcurrency),
    );
  return {
    throttlingRateLimit: throttle,
    throttlingBurstLimit: throttle,
    reservedConcurrency: Object.fromEntries(
      RESERVED_FUNCTIONS.map((name) => [name, reserve(name)]),
    ) as Preset['reservedConcurrency'],
  };
}
