/**
 * The capacity model: from the rate of requests, the inputs (`./inputs`) and the stack's own
 * settings (memory, the authorizer's cache, the webhook's batch and concurrency), what each
 * function runs at once, what each quota sees, and what a million creates cost by service.
 */
import { ACCESS_LOG_FORMAT } from '../../definitions/api';
import { FUNCTIONS } from '../../definitions/functions';
import { DELIVERY_SOURCE, STREAM_SOURCE } from '../../definitions/webhooks';
import { DEPLOYED_ASSUMPTIONS, PRICES, QUOTAS, SECONDS_PER_MONTH, type Sourced } from './inputs';
import { RATE_LIMITS, spacingMs } from '../../../lambda/webhook/rate-limit';
import { webhookLoad, type WebhookLoad } from './webhook';
import { billedMs, CAPACITY_OPERATIONS, costOf } from './costs';
import {
  authorizerRate,
  lambdaQuotaNeed,
  warmWrites,
  presetAt,
  unreservedNeed,
  unreservedPool,
  type UnreservedPool,
} from './pool';
import { RESERVED_FUNCTIONS } from './presets';

/**
 * Requests a second by operation, each named by its function's name in the registry (./costs);
 * an operation left out sends none.
 */
export type Mix = Readonly<Partial<Record<string, number>>>;

/** The share of requests answered from the authorizer's cache. */
export const cacheHitRate = (requests: number, tokens: number): number =>
  requests > 0 ? 1 - authorizerRate(requests, tokens) / requests : 1;

/** Deliveries a second the deliverer can make when receivers answer in `latencyMs`. */
export const deliveryThroughput = (
  latencyMs: number,
  concurrency = DELIVERY_SOURCE.maxConcurrency,
) => (concurrency * DELIVERY_SOURCE.batchSize * 1000) / latencyMs;

/** Bytes of Lambda's own lines per invocation (JSON log format: platform.start and platform.report). */
export const PLATFORM_LINES = [
  {
    time: '2000-01-01T00:00:00.000Z',
    type: 'platform.start',
    record: { requestId: '6f7f0961-7d4d-4e2b-8f5e-3f0b2d1c9a8e', version: '$LATEST' },
  },
  {
    time: '2000-01-01T00:00:00.011Z',
    type: 'platform.report',
    record: {
      requestId: '6f7f0961-7d4d-4e2b-8f5e-3f0b2d1c9a8e',
      metrics: { durationMs: 10.512, billedDurationMs: 11, memorySizeMB: 256, maxMemoryUsedMB: 92 },
      status: 'success',
    },
  },
].reduce((sum, line) => sum + Buffer.byteLength(`${JSON.stringify(line)}\n`), 0);

/** Bytes of one access-log line: the stack's format with a create's values. */
export const ACCESS_LINE = Buffer.byteLength(
  `${JSON.stringify({
    ...ACCESS_LOG_FORMAT,
    requestId: 'Jq3ZAhhGoAMEbCg=',
    ip: '203.0.113.10',
    requestTime: '01/Jan/2000:00:00:00 +0000',
    routeKey: 'POST /plants',
    status: '200',
    responseLength: '37',
    latency: '14',
    integrationStatus: '200',
    integrationError: '-',
    authorizerError: '-',
    tokenId: 'tok_3q2hGx0uP9bW',
  })}\n`,
);

/** A price by monthly tier for `monthly` units (the blended price of the month's usage). */
function tiered(tiers: readonly { upTo: number; price: number }[], monthly: number): number {
  let previous = 0;
  let cost = 0;
  for (const tier of tiers) {
    const inTier = Math.max(0, Math.min(monthly, tier.upTo) - previous);
    cost += inTier * tier.price;
    previous = tier.upTo;
  }
  return monthly > 0 ? cost / monthly : tiers[0]!.price;
}

/** What the stack does at one mix of requests a second. */
export interface LevelModel {
  readonly mix: Mix;
  readonly requests: number;
  readonly authorizer: number;
  readonly hitRate: number;
  /** Concurrent executions by function. */
  readonly concurrency: Record<string, number>;
  /** Invocations a second by function. */
  readonly invocationsBy: Record<string, number>;
  /** Invocations a second, every function together (Lambda's request-rate quota counts these). */
  readonly invocations: number;
  /** Concurrency reserved by function: what the level's preset reserves (none without a preset). */
  readonly reserved: Readonly<Record<string, number>>;
  /** What the functions without a reservation may need at the level's throttle (./pool). */
  readonly pool: UnreservedPool;
  /** The account concurrency the level needs: its concurrency, or its invocations ÷ 10, whichever is more. */
  readonly accountConcurrency: number;
  /** Seconds the busiest function takes to scale out from cold to the level (Lambda's scaling rate). */
  readonly coldRampSeconds: number;
  readonly writeUnits: number;
  /** Write units a second of the byTag index (each tagged write writes it too). */
  readonly indexWriteUnits: number;
  readonly readUnits: number;
  readonly webhook: WebhookLoad;
  /** Each quota's use, as a share of its default (1 = at the quota). */
  readonly pressure: {
    readonly what: string;
    readonly demand: number;
    readonly limit: number;
    readonly source: string;
    /** Shown instead of a share where the row does not apply (no preset, so no reservation). */
    readonly none?: string;
  }[];
  /** USD per million requests of the mix, by service. */
  readonly costPerMillion: Record<string, number>;
  /** Bytes logged per request of the mix. */
  readonly bytesPerRequest: number;
}

/** The second subscriber count the pressure table shows the subscriptions table's partition at. */
const TEN_SUBSCRIBERS = 10;

/** The share of one partition the webhook's reads and writes of the subscriptions table take. */
function partitionShare(webhook: WebhookLoad): number {
  return (
    webhook.subscriptionWrites / QUOTAS.dynamoPartitionWrites.value +
    webhook.subscriptionReads / QUOTAS.dynamoPartitionReads.value
  );
}

/** The model at `mix`, with `tokens` active tokens, `subscribers` and receivers answering in `latencyMs`. */
export function model(
  mix: Mix,
  options: { tokens?: number; subscribers?: number; latencyMs?: number } = {},
): LevelModel {
  const tokens = options.tokens ?? DEPLOYED_ASSUMPTIONS.activeTokens;
  const subscribers = options.subscribers ?? DEPLOYED_ASSUMPTIONS.subscribers;
  const latencyMs = options.latencyMs ?? DEPLOYED_ASSUMPTIONS.receiverLatencyMs;
  const ops = CAPACITY_OPERATIONS;
  const unknown = Object.keys(mix).filter((name) => !ops.some((op) => op.name === name));
  if (unknown.length) {
    throw new Error(`capacity: the mix names ${unknown.join(', ')}: no operation of the registry`);
  }
  const rate = (name: string) => mix[name] ?? 0;
  type Op = (typeof ops)[number];
  /** Requests a second of the operations `which` picks (times `each` of each, if given). */
  const sum = (which: (op: Op) => boolean, each?: (op: Op) => number) =>
    ops.reduce((total, op) => total + (which(op) ? rate(op.name) * (each ? each(op) : 1) : 0), 0);
  const requests = sum(() => true);
  const authorizer = authorizerRate(requests, tokens);
  const concurrency: Record<string, number> = {
    authorizer: (authorizer * billedMs('authorizer')) / 1000,
  };
  for (const op of ops) concurrency[op.function] = (rate(op.name) * billedMs(op.function)) / 1000;
  // Every write of a plant (create, change, delete) is a record the fan-out reads; a delete's
  // tombstone is removed by TTL weeks later, a REMOVE record more (the filter drops it; TTL
  // costs no write).
  const changes = sum((op) => op.plants === 'write');
  const stream = {
    records: changes,
    writes: changes + sum((op) => op.deletes),
    warm: warmWrites(requests),
  };
  const webhook = webhookLoad(stream, subscribers, latencyMs);
  concurrency['fan-out'] = (webhook.fanOutInvocations * webhook.fanOutMs) / 1000;
  concurrency.deliver = Math.min(DELIVERY_SOURCE.maxConcurrency, webhook.deliverNeeded);
  const q = QUOTAS;
  const invocationsBy: Record<string, number> = {
    authorizer,
    'fan-out': webhook.fanOutInvocations,
    deliver: webhook.deliverInvocations,
  };
  for (const op of ops) invocationsBy[op.function] = rate(op.name);
  const invocations = Object.values(invocationsBy).reduce((a, b) => a + b, 0);
  const reserved: Readonly<Record<string, number>> = presetAt(requests)?.reservedConcurrency ?? {};
  const pool = unreservedPool(requests, { tokens, subscribers, latencyMs });
  // The account's concurrency as the raising table asks for it (the default where that is more).
  const raised = Math.max(
    q.lambdaConcurrency.value,
    Math.ceil(lambdaQuotaNeed({ pool, reserved, concurrency, invocationsBy, invocations })),
  );
  const totalConcurrency = Object.values(concurrency).reduce((a, b) => a + b, 0);
  const accountConcurrency = Math.max(
    totalConcurrency,
    invocations / q.lambdaRequestsPerConcurrency.value,
  );
  // From cold, each function gains 1,000 environments or 10,000 requests a second every 10 s.
  const coldRampSeconds =
    10 *
    Math.max(
      ...ops.map((op) =>
        Math.max(
          Math.ceil(concurrency[op.function]! / q.lambdaScalingPer10s.value),
          Math.ceil(rate(op.name) / q.lambdaScalingRequestsPer10s.value),
        ),
      ),
    );
  const unitsOf = (op: Op) => costOf(op.function).units;
  const writeUnits = sum((op) => op.plants === 'write', unitsOf);
  // Each tagged create, change and delete writes the index once (projection ALL: the index item
  // is as large as the table's, under 1 KB); a delete's tombstone has no tag: it leaves the index.
  const { taggedShare, hottestTagShare } = DEPLOYED_ASSUMPTIONS;
  const indexWriteUnits = taggedShare * changes;
  const plantReads = sum((op) => op.plants === 'read', unitsOf);
  const readUnits =
    plantReads + authorizer * costOf('authorizer').units + webhook.subscriptionReads;
  const row = (what: string, demand: number, quota: Sourced) => ({
    what,
    demand,
    limit: quota.value,
    source: quota.source,
  });
  const pressure = [
    row('API Gateway requests a second (account, all APIs)', requests, q.apiGatewayRps),
    row('Lambda concurrent executions (account)', totalConcurrency, q.lambdaConcurrency),
    {
      what: 'Lambda invocations a second (account: 10 × its concurrency)',
      demand: invocations,
      limit: q.lambdaConcurrency.value * q.lambdaRequestsPerConcurrency.value,
      source: q.lambdaRequestsPerConcurrency.source,
    },
    ...RESERVED_FUNCTIONS.map((name) => ({
      what: `${name} invocations a second ÷ (10 × its reserved concurrency in the level's preset: max(3 × its concurrency, the throttle ÷ 10))`,
      demand:
        invocationsBy[name]! / (q.lambdaFunctionRequestsPerConcurrency.value * reserved[name]!),
      limit: 1,
      source: q.lambdaFunctionRequestsPerConcurrency.source,
      ...(name in reserved ? {} : { none: '—, no preset' }),
    })),
    {
      // Per function (gettingstarted-limits.html): each is invoked at most 10 × its limit, for
      // one without a reservation the pool; and together they run at once in the pool
      // (configuration-concurrency.html). The higher share shows.
      what: `functions without a reservation, in the pool (the account's concurrency as raised − the reservations): the busiest one's invocations a second ÷ (10 × the pool), or all their concurrency ÷ the pool, whichever is higher`,
      demand: unreservedNeed({ reserved, concurrency, invocationsBy }) / (raised - pool.reserved),
      limit: 1,
      source: `${q.lambdaFunctionRequestsPerConcurrency.source} and ${q.lambdaUnreserved.source}`,
    },
    // AWS states a new table's writes and reads as two limits, not as a combination.
    row(
      'plants table, new on-demand: write units a second at once',
      writeUnits,
      q.dynamoNewTableWrites,
    ),
    row(
      'plants table, new on-demand: read units a second at once',
      plantReads,
      q.dynamoNewTableReads,
    ),
    row(
      'byTag index, new on-demand (its own warm throughput, assumed to start as a table): write units a second at once',
      indexWriteUnits,
      q.dynamoNewTableWrites,
    ),
    row('plants table: its write quota (L-AB614373)', writeUnits, q.dynamoTableMax),
    row(
      `byTag index, the most common tag's one partition (${hottestTagShare * 100} % of tagged writes): write units a second; beyond, the table's writes are throttled`,
      indexWriteUnits * hottestTagShare,
      q.dynamoIndexPartitionWrites,
    ),
    row('plants table: its read quota (L-CF0CBE56)', plantReads, q.dynamoTableMax),
    {
      // A handful of items share one partition: 1,000 write or 3,000 read units, or a combination.
      what: `subscriptions table, one partition (writes ÷ 1,000 + reads ÷ 3,000; ${subscribers} subscriber${subscribers === 1 ? '' : 's'})`,
      demand: partitionShare(webhook),
      limit: 1,
      source: q.dynamoPartitionWrites.source,
    },
    {
      what: `subscriptions table, one partition, at ${TEN_SUBSCRIBERS} subscribers`,
      demand: partitionShare(webhookLoad(stream, TEN_SUBSCRIBERS, latencyMs)),
      limit: 1,
      source: q.dynamoPartitionWrites.source,
    },
    {
      // A subscriber's requests start `1.25 / rate` s apart: at --rate's maximum, 800 a second.
      what: `deliveries a second to one subscriber (at \`--rate\`'s maximum of ${RATE_LIMITS.max.toLocaleString('en-US')}, they start 1.25 ÷ rate apart)`,
      demand: stream.records,
      limit: 1000 / spacingMs(RATE_LIMITS.max),
      source: 'lambda/webhook/rate-limit.ts',
    },
    row(
      "one subscriber's item: write units a second (an item never gets more than its partition's)",
      webhook.subscriberItemWrites,
      q.dynamoPartitionWrites,
    ),
    {
      what: `fan-out, one shard: records a second its compute drains (${STREAM_SOURCE.parallelizationFactor} batches of ${STREAM_SOURCE.batchSize} at once; compute only: Lambda's ${q.streamPollsPerSecond.value} polls a second per shard bound it too)`,
      demand: changes / webhook.shards,
      limit: webhook.shardCapacity,
      source: 'lib/definitions/webhooks.ts and npm run bench -- --phases fan-out',
    },
    {
      what: `deliverer invocations at once (its mapping's ${DELIVERY_SOURCE.maxConcurrency}; ${latencyMs} ms receivers)`,
      demand: webhook.deliverNeeded,
      limit: DELIVERY_SOURCE.maxConcurrency,
      source: 'lib/definitions/webhooks.ts',
    },
    row(
      "deliverer invocations at once (the mapping setting's maximum)",
      webhook.deliverNeeded,
      q.sqsMappingMaxConcurrency,
    ),
  ];

  const monthly = (perSecond: number) => perSecond * SECONDS_PER_MONTH;
  const perMillion = (perSecond: number) => (requests > 0 ? (perSecond / requests) * 1e6 : 0);
  const gbSeconds =
    (concurrency.authorizer! + ops.reduce((s, op) => s + concurrency[op.function]!, 0)) *
      (FUNCTIONS['create-plant'].memorySize / 1024) +
    webhook.gbSeconds;
  const lambdaLogBytes =
    ops.reduce((s, op) => s + rate(op.name) * costOf(op.function).bytesLogged, 0) +
    authorizer * costOf('authorizer').bytesLogged +
    invocations * PLATFORM_LINES +
    webhook.logBytes;
  const accessBytes = requests * ACCESS_LINE;
  const gb = (bytes: number) => bytes / 1024 ** 3;
  const p = PRICES;
  const costPerMillion: Record<string, number> = {
    'API Gateway':
      1e6 *
      tiered(
        [
          { upTo: 300e6, price: p.httpApiPerMillion.value.first300M / 1e6 },
          { upTo: Infinity, price: p.httpApiPerMillion.value.beyond / 1e6 },
        ],
        monthly(requests),
      ),
    'Lambda requests': (perMillion(invocations) / 1e6) * p.lambdaRequestPerMillion.value,
    'Lambda duration':
      perMillion(gbSeconds) * tiered(p.lambdaArmGbSecond.value, monthly(gbSeconds)),
    DynamoDB:
      (perMillion(writeUnits + indexWriteUnits + webhook.subscriptionWrites) / 1e6) *
        p.dynamoWriteUnitPerMillion.value +
      (perMillion(readUnits) / 1e6) * p.dynamoReadUnitPerMillion.value,
    // The fan-out's SendMessageBatch calls, the deliverer's mapping's receives and deletes.
    SQS: (perMillion(webhook.sqsRequests) / 1e6) * p.sqsRequestPerMillion.value,
    'CloudWatch Logs':
      gb(perMillion(lambdaLogBytes)) *
        tiered(p.lambdaLogsPerGb.value, gb(monthly(lambdaLogBytes))) +
      gb(perMillion(accessBytes)) * p.customLogsPerGb.value,
  };
  return {
    mix,
    requests,
    authorizer,
    hitRate: cacheHitRate(requests, tokens),
    concurrency,
    invocationsBy,
    invocations,
    reserved,
    pool,
    accountConcurrency,
    coldRampSeconds,
    writeUnits,
    indexWriteUnits,
    readUnits,
    webhook,
    pressure,
    costPerMillion,
    bytesPerRequest: (lambdaLogBytes + accessBytes) / requests,
  };
}

/** A mix of creates only. */
export const creates = (rate: number): Mix => ({ 'create-plant': rate });

/** The read-heavy mix's shares: of every 100 requests, 78 gets, 10 lists, 7 creates, 2 patches, 2 puts and 1 delete. */
export const READ_HEAVY_SHARES = {
  'get-plant': 0.78,
  'list-plants': 0.1,
  'create-plant': 0.07,
  'update-plant': 0.02,
  'patch-plant': 0.02,
  'delete-plant': 0.01,
} as const;

/** The read-heavy mix at `rate` requests a second. */
export const readHeavy = (rate: number): Mix =>
  Object.fromEntries(
    Object.entries(READ_HEAVY_SHARES).map(([name, share]) => [name, rate * share]),
  );
