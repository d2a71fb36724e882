/**
 * The account's Lambda concurrency a preset needs: its reservations, and the pool it leaves to
 * every function without one, sized by the same worst case that sizes the reservation ("every
 * request the throttle lets through may be a create" also means it may be a get, a list or a
 * change), plus the 100 Lambda keeps unreserved.
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

/** What the functions without a reservation may need at once, by part, at a level's throttle. */
export interface UnreservedPool {
  /** The stage throttle the pool is sized at (1.2 × the rate where no preset is deployed). */
  readonly throttle: number;
  /** Concurrency reserved by the preset, all functions together (0 without one). */
  readonly reserved: number;
  /** The route functions without a reservation, if every request the throttle admits were theirs. */
  readonly routes: number;
  /** The authorizer at its miss rate: one invocation per token per cache TTL. */
  readonly authorizer: number;
  /** The fan-out at the throttle's writes, each poll split ParallelizationFactor ways. */
  readonly fanOut: number;
  /** The deliverer at the throttle's deliveries, up to the SQS mapping setting's maximum. */
  readonly deliver: number;
  /** Lambda's 100 unreserved: a floor those functions may use too, so a margin, not more work. */
  readonly floor: number;
  /** The account concurrency to ask for: reservations + the parts above + the floor. */
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
  const routes = Math.max(
    0,
    ...CAPACITY_OPERATIONS.filter((op) => !(op.function in reservedBy)).map((op) =>
      need(throttle, billedMs(op.function)),
    ),
  );
  const authorizer = need(authorizerRate(throttle, options.tokens), billedMs('authorizer'));
  const stream = { records: throttle, writes: throttle };
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
  return {
    throttle,
    reserved,
    routes,
    authorizer,
    fanOut,
    deliver,
    floor,
    quota: reserved + routes + authorizer + fanOut + deliver + floor,
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
 * level's own mix needs if more (the reservations, each other function's concurrency or its
 * invocations ÷ 10, the floor), or the mix's invocations ÷ 10 (the account's request rate).
 */
export function lambdaQuotaNeed(m: LambdaParts): number {
  const perConcurrency = QUOTAS.lambdaRequestsPerConcurrency.value;
  const others = Object.keys(m.invocationsBy).filter((name) => !(name in m.reserved));
  const mix =
    m.pool.reserved +
    others.reduce(
      (s, name) => s + Math.max(m.concurrency[name] ?? 0, m.invocationsBy[name]! / perConcurrency),
      0,
    ) +
    m.pool.floor;
  return Math.max(m.pool.quota, mix, m.invocations / perConcurrency);
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
