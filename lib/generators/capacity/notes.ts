/**
 * The parts of docs/capacity.md's generated section that explain a table: the account
 * concurrency by part, the fan-out's split, the subscriptions partition's margins, deferrals.
 */
import { STREAM_SOURCE } from '../../definitions/webhooks';
import { REFRESH_AT_RECEIVE_COUNT, SAFETY_RECEIVE_COUNT } from '../../../lambda/webhook/schedule';
import { levelHead, n, pct, table } from './format';
import { DEPLOYED_ASSUMPTIONS, PRICES, QUOTAS } from './inputs';
import { model, type LevelModel } from './model';
import { warmWrites } from './pool';
import { ATTEMPTS_ITEM_BYTES, SUBSCRIPTION_ITEM_BYTES, webhookLoad } from './webhook';

/**
 * The account concurrency each level asks for, by part, and what each of the three rules AWS
 * states needs at the throttle: the figure asked for is the parts summed, the rest a margin.
 */
export function poolTable(models: readonly LevelModel[]): string {
  const row = (label: string, value: (m: LevelModel) => string) => [label, ...models.map(value)];
  const tokens = DEPLOYED_ASSUMPTIONS.activeTokens;
  const { subscribers, receiverLatencyMs } = DEPLOYED_ASSUMPTIONS;
  const quota = (m: LevelModel) => Math.ceil(m.pool.quota);
  const binding = (m: LevelModel) => Math.max(...Object.values(m.pool.rules));
  return table(levelHead(), [
    row("stage throttle (the preset's; 1.2 × the rate where none is deployed)", (m) =>
      n(m.pool.throttle),
    ),
    row('reserved by the preset', (m) =>
      Object.keys(m.reserved).length > 0 ? n(m.pool.reserved) : '—, no preset',
    ),
    row(
      'a route function without a reservation given every request the throttle admits (the throttle ÷ 10)',
      (m) => n(m.pool.routes, 1),
    ),
    row(
      `authorizer at its miss rate, ${n(tokens)} distinct tokens (the cost table's assumption; invocations ÷ 10)`,
      (m) => n(m.pool.authorizer, 2),
    ),
    row(
      `fan-out at the throttle's writes, each poll split ${STREAM_SOURCE.parallelizationFactor} ways (invocations ÷ 10)`,
      (m) => n(m.pool.fanOut, 1),
    ),
    row(
      `deliverer at the throttle's deliveries (${subscribers} subscriber, ${receiverLatencyMs} ms receivers), up to its mapping's maximum of ${n(QUOTAS.sqsMappingMaxConcurrency.value)}`,
      (m) => n(m.pool.deliver, 1),
    ),
    row(
      `Lambda's ${QUOTAS.lambdaUnreserved.value} unreserved: a floor these functions use too, so a margin, not more work`,
      (m) => n(m.pool.floor),
    ),
    row(
      `**account concurrency the level asks for** (the parts above, or the binding rule below if more; the raising table asks for it where above the default ${n(QUOTAS.lambdaConcurrency.value)})`,
      (m) => `**${n(quota(m))}**`,
    ),
    row(
      'rule per function: the reservations + the busiest function without one ÷ 10 (a route, or the authorizer missing on every request: the throttle)',
      (m) => n(m.pool.rules.perFunction, 1),
    ),
    row(
      'rule for the account: every invocation ÷ 10 (the throttle to the routes, the authorizer missing on every request, the split fan-out, the deliverer)',
      (m) => n(m.pool.rules.account, 1),
    ),
    row(
      "rule for concurrency: the reservations + all the others' concurrency at once (the slowest route and the authorizer at the throttle, the webhook functions)",
      (m) => n(m.pool.rules.concurrency, 1),
    ),
    row('margin beyond the binding rule (the figure asked for − the highest rule)', (m) =>
      n(quota(m) - binding(m), 1),
    ),
    row(
      'left to the functions without a reservation (the quota as raised − the reservations)',
      (m) => n(Math.max(QUOTAS.lambdaConcurrency.value, quota(m)) - m.pool.reserved),
    ),
  ]);
}

/**
 * What the fan-out would be if Lambda split each poll's records among a shard's concurrent
 * batches (the model assumes it does not: `webhookLoad`), at the highest level.
 */
export function splitNote(models: readonly LevelModel[]): string {
  const m = models.at(-1)!;
  const pf = STREAM_SOURCE.parallelizationFactor;
  const { subscribers, receiverLatencyMs } = DEPLOYED_ASSUMPTIONS;
  const stream = { records: m.requests, writes: m.requests, warm: warmWrites(m.requests) };
  const split = webhookLoad(stream, subscribers, receiverLatencyMs, pf);
  return (
    `The fan-out's batches are what a shard gathers between two polls, whole: an assumption, since AWS runs up to ${pf} batches of a shard at once (ParallelizationFactor) without saying how a poll's records are shared among them. ` +
    `Split ${pf} ways at ${n(m.requests)} creates/s, batches would hold ${n(split.recordsPerBatch)} records, the fan-out would be invoked ${n(split.fanOutInvocations)} times a second (not ${n(m.webhook.fanOutInvocations)}), which adds ${n((split.fanOutInvocations - m.webhook.fanOutInvocations) / QUOTAS.lambdaRequestsPerConcurrency.value)} to the account concurrency its invocations ÷ 10 need; its SQS requests would be ${n(split.sqsRequests)} a second (not ${n(m.webhook.sqsRequests)}). ` +
    `The subscribers' Scans are counted at the most a shard runs already: ${pf} sandboxes on each shard, each reading the list once per 10 s (${n(m.webhook.scans)} Scans a second at ${n(m.requests)} creates/s).`
  );
}

/** What a delivery held back by its subscriber's rate costs, and what it does to the queue's safety net. */
export function deferralNote(): string {
  const perDeferral = 1 + 1 / QUOTAS.sqsBatchMessages.value;
  return (
    `Not costed: when a subscriber's rate binds (the row "deliveries a second to one subscriber" over 100 %), each delivery held back is made visible again later with one \`ChangeMessageVisibility\` and received once more: ${n(perDeferral, 1)} SQS requests a deferral ($${n(perDeferral * PRICES.sqsRequestPerMillion.value, 2)} per million deferrals), plus the deliverer's run time; how many deferrals a delivery takes grows with the backlog, which grows as long as the rate binds, so the cost table (${n(DEPLOYED_ASSUMPTIONS.subscribers)} subscriber) leaves them out. ` +
    `Each receive also counts toward the queue's maxReceiveCount (${SAFETY_RECEIVE_COUNT}): from the ${REFRESH_AT_RECEIVE_COUNT}th receive the deliverer queues a fresh copy of a waiting delivery (one send more) so that waiting does not reach it, but SQS counts receives approximately, and a message that reached it would be moved to the dead-letter queue: redrivable, not lost.`
  );
}

/**
 * The margins of the subscriptions table's partition at ten subscribers and the highest level:
 * a Scan's read units are rounded up to 4 KB, and the shards are a lower bound.
 */
export function scanNote(models: readonly LevelModel[]): string {
  const top = models.at(-1)!;
  const ten = model(top.mix, { subscribers: 10 });
  const w = ten.webhook;
  const bytes = 10 * (SUBSCRIPTION_ITEM_BYTES + ATTEMPTS_ITEM_BYTES);
  const share = (reads: number) =>
    w.subscriptionWrites / QUOTAS.dynamoPartitionWrites.value +
    reads / QUOTAS.dynamoPartitionReads.value;
  return (
    `The subscriptions table's partition at ten subscribers and ${n(top.requests)} creates/s (${pct(share(w.subscriptionReads))} above) has two margins that figure leaves out. ` +
    `A Scan of ten subscribers is ${n(bytes)} bytes, ${n(bytes / 4096, 4)} × 4 KB, so ${w.scanUnits} read units, ${n(w.scanUnits * 4096 - bytes + 1)} bytes short of ${w.scanUnits + 1} (a byte more in each subscriber's item adds ten): at ${w.scanUnits + 1} units the partition is at ${pct(share(w.subscriptionReads + w.scans))}. ` +
    `And its ${n(w.scans)} Scans a second count ${STREAM_SOURCE.parallelizationFactor} sandboxes on each of ${n(w.shards)} shards, one per partition the table has at least (its writes, or its warm throughput if more: a new table's 4,000 writes or the plan's pre-warm, ÷ 1,000; that shards follow partitions is the model's assumption, no AWS page states it): a table with more partitions has more shards and more Scans.`
  );
}
