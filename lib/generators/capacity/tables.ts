/**
 * The capacity model's tables, as Markdown, computed from its inputs: `npm run capacity` prints
 * them all, and `npm run generate` writes docs/capacity.md's generated blocks (`capacityBlocks`).
 */
import { API } from '../../definitions/api';
import { FUNCTIONS, type FunctionName } from '../../definitions/functions';
import { DELIVERY_SOURCE } from '../../definitions/webhooks';
import {
  DEPLOYED_ASSUMPTIONS,
  LEVELS,
  MEASURED,
  PRICES,
  PRICES_AS_OF,
  QUOTA_CODES,
  QUOTAS,
  SECONDS_PER_MONTH,
} from './inputs';
import {
  ACCESS_LINE,
  cacheHitRate,
  creates,
  deliveryThroughput,
  model,
  PLATFORM_LINES,
  READ_HEAVY_SHARES,
  readHeavy,
  type LevelModel,
} from './model';
import { measuredOn } from '../docs/performance';
import { quotaNeeds } from './pool';
import { levelHead, n, pct, table, usd } from './format';
import { deferralNote, poolTable, scanNote, splitNote } from './notes';
import { RESERVED_FUNCTIONS, RESERVE_SLOWDOWN, THROTTLE_HEADROOM } from './presets';
import { billedMs, costOf, DEFAULTED } from './costs';

/** A price or quota as the document shows it. */
function shown(value: unknown): string {
  if (typeof value === 'number')
    return n(value, value < 1 ? Math.min(10, String(value).length - 2) : 0);
  if (Array.isArray(value)) {
    return value
      .map(
        (tier: { upTo: number; price: number }) =>
          `${shown(tier.price)}${tier.upTo === Infinity ? ' beyond' : ` to ${n(tier.upTo)}`}`,
      )
      .join('; ');
  }
  return Object.entries(value as Record<string, number>)
    .map(([key, v]) => `${key} ${shown(v)}`)
    .join(', ');
}

function sourcesTable(): string {
  return table(
    ['input', 'value', 'AWS source'],
    [
      ...Object.entries(QUOTAS).map(([key, q]) => [`quota: ${key}`, shown(q.value), q.source]),
      ...Object.entries(PRICES).map(([key, p]) => [
        `price: ${key} (USD)`,
        shown(p.value),
        p.source,
      ]),
    ],
  );
}

function measuredTable(): string {
  // An operation not yet measured shows the figures that stand in for its own, and whose.
  const names = [
    ...(Object.keys(MEASURED.request.functions) as FunctionName[]),
    ...DEFAULTED.map((op) => op.function),
  ];
  const rows = names.map((name) => {
    const f = costOf(name);
    return [
      f.defaultOf ? `${name} (not measured: ${f.defaultOf}'s figures)` : name,
      `${f.ms} ms`,
      `${billedMs(name)} ms`,
      `${f.bytesLogged} B`,
      String(f.units),
    ];
  });
  return table(
    [
      'function',
      'handler, warm (measured)',
      `billed on Lambda (+ ${DEPLOYED_ASSUMPTIONS.dynamoRoundTripMs} ms round trip, rounded up)`,
      'logged by the function',
      'DynamoDB capacity units',
    ],
    rows,
  );
}

function shapeTable(models: readonly LevelModel[]): string {
  const row = (label: string, value: (m: LevelModel) => string) => [label, ...models.map(value)];
  const w = (m: LevelModel) => m.webhook;
  return table(levelHead(), [
    row(
      `authorizer invocations/s (${n(DEPLOYED_ASSUMPTIONS.activeTokens)} tokens; cache hit rate)`,
      (m) => `${n(m.authorizer, 1)} (${pct(m.hitRate)})`,
    ),
    row('concurrency: create-plant', (m) => n(m.concurrency['create-plant']!, 1)),
    row('concurrency: authorizer', (m) => n(m.concurrency.authorizer!, 2)),
    row('concurrency: fan-out', (m) => n(m.concurrency['fan-out']!, 2)),
    row(
      `concurrency: deliver (${DEPLOYED_ASSUMPTIONS.subscribers} subscriber, ${DEPLOYED_ASSUMPTIONS.receiverLatencyMs} ms receivers)`,
      (m) => n(m.concurrency.deliver!, 1),
    ),
    row('Lambda invocations/s, every function', (m) => n(m.invocations)),
    row(
      'account concurrency needed without reservations: the concurrency, or invocations ÷ 10 if more',
      (m) => n(Math.ceil(m.accountConcurrency)),
    ),
    ...RESERVED_FUNCTIONS.map((name) =>
      row(
        `${name}: reserved by the level's preset (max(${RESERVE_SLOWDOWN} × its concurrency, ${THROTTLE_HEADROOM} × the rate ÷ 10)), and so its invocations/s at most`,
        (m) =>
          name in m.reserved
            ? `${n(m.reserved[name]!)}; ${n(m.reserved[name]! * QUOTAS.lambdaFunctionRequestsPerConcurrency.value)}`
            : '—, no preset',
      ),
    ),
    row('create-plant from cold (1,000 environments or 10,000 requests/s more per 10 s), s', (m) =>
      n(m.coldRampSeconds),
    ),
    row(
      `DynamoDB write units/s (plants; its byTag index, ${n(DEPLOYED_ASSUMPTIONS.taggedShare * 100)} % of plants tagged; subscriptions)`,
      (m) => `${n(m.writeUnits)}; ${n(m.indexWriteUnits)}; ${n(m.webhook.subscriptionWrites)}`,
    ),
    row('DynamoDB read units/s (tokens, subscriptions)', (m) => n(m.readUnits, 1)),
    row(
      "stream shards (one per 1,000 writes/s or warm write units, whichever is more: a new table's 4,000, or the plan's pre-warm)",
      (m) => n(w(m).shards),
    ),
    row(
      'fan-out: records a batch (4 polls/s a shard); SendMessageBatch calls a batch; run time, ms',
      (m) => `${n(w(m).recordsPerBatch)}; ${n(w(m).callsPerBatch)}; ${n(w(m).fanOutMs, 1)}`,
    ),
    row(
      'webhook deliveries/s; SQS requests/s',
      (m) => `${n(w(m).deliveries)}; ${n(w(m).sqsRequests)}`,
    ),
    row('bytes logged per create (all log groups)', (m) => n(m.bytesPerRequest)),
    row('log GB a day', (m) => n((m.bytesPerRequest * m.requests * 86_400) / 1024 ** 3, 1)),
  ]);
}

/** The two mixes the page models, creates only and read-heavy, each at every level of `LEVELS`. */
export function modelledMixes(): { readonly write: LevelModel[]; readonly read: LevelModel[] } {
  return {
    write: LEVELS.map((rate) => model(creates(rate))),
    read: LEVELS.map((rate) => model(readHeavy(rate))),
  };
}

/**
 * What each quota must be raised to at each level of `LEVELS`: the most any of `mixes` needs
 * (the raising table shows it, rounded up, where above the default; the prose repeats some).
 */
export function raisingNeeds(
  mixes: readonly (readonly LevelModel[])[] = Object.values(modelledMixes()),
): ReturnType<typeof quotaNeeds>[] {
  return LEVELS.map((_, i) => {
    const each = mixes.map((models) => quotaNeeds(models[i]!));
    return Object.fromEntries(
      QUOTA_CODES.map((q) => [q.quota, Math.max(...each.map((need) => need[q.quota]))]),
    ) as ReturnType<typeof quotaNeeds>;
  });
}

/**
 * The quotas each level needs raised, in the order to raise them (their Service Quotas codes):
 * the most any of the mixes (`mixes[k][level]`) needs.
 */
function raisingTable(mixes: readonly (readonly LevelModel[])[]): string {
  const needed = raisingNeeds(mixes);
  return table(
    [
      'order',
      'Service Quotas code',
      'quota (default)',
      ...LEVELS.map((r) => `${n(r)} creates/s`),
      'why first',
    ],
    QUOTA_CODES.map((q, i) => [
      String(i + 1),
      q.code,
      `${q.name} (${n(QUOTAS[q.quota].value)})`,
      ...needed.map((need) => {
        const value = Math.ceil(need[q.quota]);
        return value > QUOTAS[q.quota].value ? `**${n(value)}**` : 'default';
      }),
      q.why,
    ]),
  );
}

function hitRateTable(): string {
  const tokens = [10, 1_000, 100_000, 1_000_000];
  return table(
    ['distinct tokens', ...LEVELS.map((rate) => `${n(rate)} requests/s`)],
    tokens.map((t) => [n(t), ...LEVELS.map((rate) => pct(cacheHitRate(rate, t)))]),
  );
}

function deliveryTable(): string {
  const latencies = [100, 1_000, 10_000];
  const subscribers = [1, 10, 100];
  return table(
    ['subscribers', ...LEVELS.map((rate) => `${n(rate)} creates/s`)],
    subscribers.map((s) => [
      `${s}: deliveries/s; deliverer concurrency needed at ${latencies.map((l) => (l < 1000 ? `${l} ms` : `${l / 1000} s`)).join(' / ')}`,
      ...LEVELS.map((rate) => {
        const deliveries = rate * s;
        const needed = latencies.map((l) =>
          n(Math.ceil((deliveries / DELIVERY_SOURCE.batchSize) * (l / 1000))),
        );
        return `${n(deliveries)}; ${needed.join(' / ')}`;
      }),
    ]),
  );
}

function costTable(models: readonly LevelModel[], unit = 'creates'): string {
  const services = Object.keys(models[0]!.costPerMillion);
  const total = (m: LevelModel) => Object.values(m.costPerMillion).reduce((a, b) => a + b, 0);
  return table(levelHead(unit === 'creates' ? 'creates/s' : 'requests/s'), [
    ...services.map((s) => [s, ...models.map((m) => usd(m.costPerMillion[s]!))]),
    [`**per million ${unit}**`, ...models.map((m) => `**${usd(total(m))}**`)],
    [
      'of which CloudWatch Logs',
      ...models.map((m) => pct(m.costPerMillion['CloudWatch Logs']! / total(m))),
    ],
    [
      'a 30-day month at that rate',
      ...models.map((m) => `$${n((total(m) * m.requests * SECONDS_PER_MONTH) / 1e6)}`),
    ],
  ]);
}

function pressureTable(models: readonly LevelModel[], unit = 'creates/s'): string {
  const whats = models[0]!.pressure.map((p) => p.what);
  return table(
    ['default quota or limit', ...LEVELS.map((rate) => `${n(rate)} ${unit}`)],
    whats.map((what, i) => [
      `${what}: ${n(models[0]!.pressure[i]!.limit)}`,
      ...models.map((m) => {
        const none = m.pressure[i]!.none;
        if (none !== undefined) return none;
        const share = m.pressure[i]!.demand / m.pressure[i]!.limit;
        return share >= 1 ? `**${pct(share)}: over**` : pct(share);
      }),
    ]),
  );
}

/** The bench's figures the model reads, and where they were measured. */
function measuredBlock(): string {
  const { request, fanOut } = MEASURED;
  return [
    `Measured on ${measuredOn(request)} by \`${request.command} --write-measurements\` (medians of the real handlers, warm, in process against the local engine; \`measurements/bench.json\`):`,
    '',
    measuredTable(),
    '',
    `Lambda's own lines add ${PLATFORM_LINES} bytes per invocation and the access log ${ACCESS_LINE} bytes per request (computed from their formats). The fan-out spends ${fanOut.cpuMsPerCall} ms of CPU per SendMessageBatch (\`${fanOut.command} --write-measurements\`, ${measuredOn(fanOut)}), on the one vCPU its ${n(FUNCTIONS['fan-out'].memorySize)} MB give it.`,
  ].join('\n');
}

/** The blocks of docs/capacity.md, by name, each computed by the model from its inputs. */
export function capacityBlocks(): Readonly<
  Record<(typeof CAPACITY_BLOCK_NAMES)[number] | 'capacity-quotas', string>
> {
  const { write, read } = modelledMixes();
  return {
    'capacity-measured': measuredBlock(),
    'capacity-shape': shapeTable(write),
    'capacity-cost': [
      `Creates only (${DEPLOYED_ASSUMPTIONS.subscribers} subscriber, ${n(DEPLOYED_ASSUMPTIONS.activeTokens)} tokens, ${DEPLOYED_ASSUMPTIONS.receiverLatencyMs} ms receivers; ${PRICES_AS_OF.region} list prices, each with its source in \`npm run capacity\`):`,
      '',
      costTable(write),
      '',
      `The read-heavy mix (${readHeavyWords()}), per million requests:`,
      '',
      costTable(read, 'requests'),
    ].join('\n'),
    'capacity-quotas': pressureTable(write),
    'capacity-raising': raisingTable([write, read]),
  };
}

/** The names of docs/capacity.md's generated blocks. */
const CAPACITY_BLOCK_NAMES = [
  'capacity-measured',
  'capacity-shape',
  'capacity-cost',
  'capacity-raising',
] as const;

/** The producers of docs/capacity.md's generated blocks, by block name. */
export const CAPACITY_BLOCKS: Readonly<Record<string, () => string>> = Object.fromEntries(
  CAPACITY_BLOCK_NAMES.map((name) => [name, () => capacityBlocks()[name]]),
);

/** The read-heavy mix's shares in words. */
function readHeavyWords(): string {
  return Object.entries(READ_HEAVY_SHARES)
    .map(([name, share]) => `${pct(share)} ${name}`)
    .join(', ');
}

/** Everything the model computes, as `npm run capacity` prints it: the page's blocks and the rest. */
export function capacityTables(): string {
  const { write, read } = modelledMixes();
  const blocks = capacityBlocks();
  return [
    `#### Quotas and prices (${PRICES_AS_OF.region}, read ${PRICES_AS_OF.read}; tiers are monthly volumes: GB-seconds, GB)`,
    '',
    sourcesTable(),
    '',
    '#### Measured per invocation',
    '',
    blocks['capacity-measured'],
    '',
    '#### The shape at each level (creates only)',
    '',
    blocks['capacity-shape'],
    '',
    splitNote(write),
    '',
    `#### The authorizer cache's hit rate by distinct tokens (TTL ${API.authorizer.defaultCacheTtlSeconds} s)`,
    '',
    hitRateTable(),
    '',
    `#### Webhook deliveries and the deliverer (${DELIVERY_SOURCE.batchSize} messages a batch, at most ${DELIVERY_SOURCE.maxConcurrency} at once; receivers answering in 100 ms, 1 s, 10 s)`,
    '',
    deliveryTable(),
    '',
    `At its ${DELIVERY_SOURCE.maxConcurrency} invocations the deliverer makes ${n(deliveryThroughput(100))}, ${n(deliveryThroughput(1000))} and ${n(deliveryThroughput(10_000))} deliveries a second at those latencies.`,
    '',
    '#### Cost per million requests, by service',
    '',
    blocks['capacity-cost'],
    '',
    '#### Each default quota, used at each level (creates only)',
    '',
    blocks['capacity-quotas'],
    '',
    scanNote(write),
    '',
    deferralNote(),
    '',
    '#### Raising quotas: what each level needs, in this order (Service Quotas)',
    '',
    blocks['capacity-raising'],
    '',
    'The account concurrency by part:',
    '',
    poolTable(write),
    '',
    '#### The read-heavy mix: each default quota, used at each level',
    '',
    pressureTable(read, 'requests/s'),
  ].join('\n');
}
