/**
 * The account's Lambda concurrency a preset needs: its reservations, and the pool (the quota − the
 * reservations) they leave to every function without one, checked against the three rules AWS
 * states (https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html and
 * https://docs.aws.amazon.com/lambda/latest/dg/configuration-concurrency.html): each function is
 * invoked at most 10 × its concurrency limit a second (for a function without a reservation, the
 * pool); all functions together at most 10 × the account's concurrency; and the functions without
 * a reservation run at once in the pool, together. Each at the reservation's own worst case:
 * every request the throttle lets through may be a create, and as well a get, a list or a change.
 */
import { API } from '../../definitions/api';
import { STREAM_SOURCE } from '../../definitions/webhooks';
import { billedMs, CAPACITY_OPERATIONS } from './costs';
import { QUOTA_CODES, QUOTAS } from './inputs';
import { presetFor, PRESET_RATES, THROTTLE_HEADROOM, type Preset } from './presets';
import { webhookLoad } from './webhook';

/**
 * Authorizer invocations a second: each token's decision is cached for the TTL, so each active
 * token costs one invocation per TTL at most (and never more than the requests).
 */
export function authorizerRate(requests: number, tokens: number): number {
  return Math.min(requests, tokens / API.authorizer.defaultCacheTtlSeconds);
}

/**
 * The preset deployed for a level of `requests` a second: the one made for that rate, or none
 * (below the 1k preset, a stage runs without one).
 */
export function presetAt(requests: number): Preset | undefined {
  const rate = PRESET_RATES.find((r) => Math.abs(r - requests) <= 1e-9 * r);
  return rate === undefined ? undefined : presetFor(rate);
}

/**
 * Write units a second the plan pre-warms the plants table (and its byTag index) to at a level of
 * `requests` a second: the preset's throttle, where it is more than a new table's 4,000 writes
 * (the 10k and 100k plans); none elsewhere.
 */
export function prewarmedTo(requests: number): number | undefined {
  const throttle = presetAt(requests)?.throttlingRateLimit;
  return throttle !== undefined && throttle > QUOTAS.dynamoNewTableWrites.value
    ? throttle
    : undefined;
}

/**
 * Write units a second the plants table is warm at, at a level of `requests` a second: what the
 * plan pre-warms it to, or a new on-demand table's 4,000 (it starts there and never drops). Its
 * stream has a shard per 1,000 of them at least (`webhookLoad`), so never fewer than four.
 */
export function warmWrites(requests: number): number {
  return Math.max(QUOTAS.dynamoNewTableWrites.value, prewarmedTo(requests) ?? 0);
}

/** What the functions without a reservation may need, by part and by rule, at a level's throttle. */
export interface UnreservedPool {
  /** The stage throttle the pool is sized at (1.2 × the rate where no preset is deployed). */
  readonly throttle: number;
  /** Concurrency reserved by the preset, all functions together (0 without one). */
  readonly reserved: number;
  /** A route function without a reservation given every request the throttle admits: the throttle ÷ 10. */
  readonly routes: number;
  /** The authorizer at its miss rate (one invocation per token per cache TTL): its invocations ÷ 10. */
  readonly authorizer: number;
  /** The fan-out at the throttle's writes, each poll split ParallelizationFactor ways. */
  readonly fanOut: number;
  /** The deliverer at the throttle's deliveries, up to the SQS mapping setting's maximum. */
  readonly deliver: number;
  /** Lambda's 100 unreserved: a floor those functions may use too, so a margin, not more work. */
  readonly floor: number;
  /**
   * The three rules, each the account concurrency it needs at the throttle, with the authorizer
   * missing on every request (a flood of distinct or made-up tokens): the reservations + the
   * busiest function without one's invocations ÷ 10 (per function); the reservations + the
   * concurrency of those without one, together (concurrency); every invocation ÷ 10 (account).
   */
  readonly rules: {
    readonly perFunction: number;
    readonly concurrency: number;
    readonly account: number;
  };
  /** The account concurrency to ask for: the parts above summed, or the binding rule if more. */
  readonly quota: number;
}

/** One function's need: its concurrency, or its invocations ÷ 10 if more (10 a second per environment). */
const need = (invocations: number, ms: number) =>
  Math.max((invocations * ms) / 1000, invocations / QUOTAS.lambdaRequestsPerConcurrency.value);

/**
 * The unreserved pool at `requests` a second: with `tokens` active tokens, `subscribers` and
 * receivers answering in `latencyMs`. Every request the throttle admits may go to one function
 * without a reservation; each may also be a change, a stream record the webhook functions carry.
 */
export function unreservedPool(
  requests: number,
  options: { tokens: number; subscribers: number; latencyMs: number },
): UnreservedPool {
  const preset = presetAt(requests);
  const throttle = preset?.throttlingRateLimit ?? THROTTLE_HEADROOM * requests;
  const reservedBy: Readonly<Record<string, number>> = preset?.reservedConcurrency ?? {};
  const reserved = Object.values(reservedBy).reduce((a, b) => a + b, 0);
  const open = CAPACITY_OPERATIONS.filter((op) => !(op.function in reservedBy));
  const routes = Math.max(0, ...open.map((op) => need(throttle, billedMs(op.function))));
  const authorizer = need(authorizerRate(throttle, options.tokens), billedMs('authorizer'));
  const stream = { records: throttle, writes: throttle, warm: warmWrites(requests) };
  const { parallelizationFactor } = STREAM_SOURCE;
  const split = webhookLoad(stream, options.subscribers, options.latencyMs, parallelizationFactor);
  const fanOut = need(split.fanOutInvocations, split.fanOutMs);
  // Its sandboxes hold a batch for the slowest receiver: its concurrency, up to the most its
  // mapping can be set to, is what the plan raises it to (200 at 100k), not the 50 it ships with.
  const deliver = Math.min(
    QUOTAS.sqsMappingMaxConcurrency.value,
    need(split.deliverInvocations, options.latencyMs),
  );
  const floor = QUOTAS.lambdaUnreserved.value;
  const perRequest = QUOTAS.lambdaFunctionRequestsPerConcurrency.value;
  const webhookInvocations = split.fanOutInvocations + split.deliverInvocations;
  const rules = {
    // A route without a reservation, or the authorizer missing on every request: the throttle.
    perFunction:
      reserved + Math.max(throttle, split.fanOutInvocations, split.deliverInvocations) / perRequest,
    concurrency:
      reserved +
      Math.max(0, ...open.map((op) => (throttle * billedMs(op.function)) / 1000)) +
      (throttle * billedMs('authorizer')) / 1000 +
      (split.fanOutInvocations * split.fanOutMs) / 1000 +
      deliver,
    // Every request invokes a route function (reserved or not) and, on a miss, the authorizer.
    account: (2 * throttle + webhookInvocations) / QUOTAS.lambdaRequestsPerConcurrency.value,
  };
  const parts = reserved + routes + authorizer + fanOut + deliver + floor;
  return {
    throttle,
    reserved,
    routes,
    authorizer,
    fanOut,
    deliver,
    floor,
    rules,
    quota: Math.max(parts, rules.perFunction, rules.concurrency, rules.account),
  };
}

/** What `lambdaQuotaNeed` reads of a level (a `LevelModel`'s fields). */
interface LambdaParts {
  readonly pool: UnreservedPool;
  readonly reserved: Readonly<Record<string, number>>;
  readonly concurrency: Readonly<Record<string, number>>;
  readonly invocationsBy: Readonly<Record<string, number>>;
  readonly invocations: number;
}

/**
 * The account concurrency a level needs: the pool's worst case at the throttle, or what the
 * level's own mix needs by the same three rules if more (the reservations + its busiest function
 * without one's invocations ÷ 10; the reservations + the concurrency of those without one; every
 * invocation ÷ 10).
 */
export function lambdaQuotaNeed(m: LambdaParts): number {
  return Math.max(
    m.pool.quota,
    m.pool.reserved + unreservedNeed(m),
    m.invocations / QUOTAS.lambdaRequestsPerConcurrency.value,
  );
}

/**
 * The pool a level's functions without a reservation need, by two of AWS's rules: the busiest
 * one's invocations ÷ 10 (per function), or all their concurrency at once, whichever is more.
 */
export function unreservedNeed(
  m: Pick<LambdaParts, 'reserved' | 'concurrency' | 'invocationsBy'>,
): number {
  const perRequest = QUOTAS.lambdaFunctionRequestsPerConcurrency.value;
  const others = Object.keys(m.invocationsBy).filter((name) => !(name in m.reserved));
  const busiest = Math.max(0, ...others.map((name) => m.invocationsBy[name]!)) / perRequest;
  const together = others.reduce((s, name) => s + (m.concurrency[name] ?? 0), 0);
  return Math.max(busiest, together);
}

/** What `quotaNeeds` reads of a level (a `LevelModel`'s fields). */
interface QuotaParts extends LambdaParts {
  readonly requests: number;
  readonly writeUnits: number;
  readonly indexWriteUnits: number;
  readonly readUnits: number;
}

/**
 * What each quota to raise (`QUOTA_CODES`) must be raised to for the level `m` models, with its
 * preset deployed: the raising table shows the most of this over the mixes it models.
 */
export function quotaNeeds(m: QuotaParts): Record<(typeof QUOTA_CODES)[number]['quota'], number> {
  return {
    // The table and its byTag index are pre-warmed to the stage throttle; the quota (per table
    // or index) must allow it.
    dynamoTableMax: THROTTLE_HEADROOM * Math.max(m.writeUnits, m.indexWriteUnits, m.readUnits),
    lambdaConcurrency: lambdaQuotaNeed(m),
    apiGatewayRps: THROTTLE_HEADROOM * m.requests,
  };
}
