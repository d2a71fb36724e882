/**
 * The webhook in the capacity model, at a rate of the plants table's writes: every create, change
 * and delete is a stream record (INSERT or MODIFY) that the fan-out reads; a delete's second
 * write, its REMOVE, is a record Lambda's filter drops before any invocation. The fan-out's
 * batches, calls and run time (from the code's own constants and the fan-out bench's CPU per call), the
 * deliverer's invocations, the SQS requests both make, the subscriptions table's partition, and
 * what both functions log.
 */
import { FAN_OUT_IN_FLIGHT } from '../../../lambda/fan-out/fan-out';
import { QUIET_MS, RECORD_EVERY_MS } from '../../../lambda/deliver/receiver-gate';
import { SUBSCRIBERS_FRESH_SECONDS } from '../../../lambda/webhook/config';
import { RECENT_ATTEMPTS_KEPT } from '../../../lambda/webhook/health';
import { GRANT_EPOCHS, PACE_EPOCH_MS, RESERVE_AHEAD_MS } from '../../../lambda/webhook/rate-limit';
import { BATCH_ENTRIES } from '../../../lambda/webhook/queue-body';
import { FUNCTIONS } from '../../definitions/functions';
import { DELIVERY_SOURCE, STREAM_SOURCE } from '../../definitions/webhooks';
import { DEPLOYED_ASSUMPTIONS, MEASURED, QUOTAS } from './inputs';

/** Bytes of one line as CloudWatch Logs ingests it (the JSON and its newline). */
const lineBytes = (line: unknown) => Buffer.byteLength(`${JSON.stringify(line)}\n`);

const ISO = '2000-01-01T00:00:00.000Z';
const WEBHOOK_ID = 'msg_2mXWbq0kQpH3sd9Jc1Lr8vTf';
const FUNCTION_CONTEXT = {
  cold_start: false,
  function_arn: 'arn:aws:lambda:us-east-1:123456789012:function:PlantStore-Deliver1A2B3C4D5E6F',
  function_memory_size: '256',
  function_name: 'PlantStore-Deliver1A2B3C4D5E6F',
  function_request_id: '6f7f0961-7d4d-4e2b-8f5e-3f0b2d1c9a8e',
  sampling_rate: 0,
  service: 'plant-store',
  timestamp: ISO,
  xray_trace_id: '1-674392a8-3f0b2d1c9a8e6f7f09617d4d',
};

/**
 * A subscriber's item: its address and sealed secret, its pace (with the counts of slots granted
 * in two seconds of its grid) and health. Its latest attempts are an item of their own.
 */
export const SUBSCRIPTION_ITEM_BYTES = Buffer.byteLength(
  JSON.stringify({
    subscriberId: 'sub_Xk2q9wLrT0aB7cD3eF5gHh',
    url: 'https://receiver.example.com/plant-store/webhooks',
    name: 'orders',
    createdAt: ISO,
    secret: 'A'.repeat(248),
    rate: 100,
    slowdown: 0,
    consecutiveFailures: 0,
    paceUsed1764035592: 800,
    paceSpacing1764035592: 1.25,
    paceUsed1764035593: 800,
    paceSpacing1764035593: 1.25,
  }),
);

/** The item that keeps a subscriber's last 20 attempts (`attempt-records.ts`). */
export const ATTEMPTS_ITEM_BYTES = Buffer.byteLength(
  JSON.stringify({
    subscriberId: 'sub_Xk2q9wLrT0aB7cD3eF5gHh#attempts',
    recentAttempts: Array.from({ length: RECENT_ATTEMPTS_KEPT }, () => ({
      at: ISO,
      webhookId: WEBHOOK_ID,
      attempt: 1,
      ms: 183,
      status: 200,
    })),
  }),
);

/** The deliverer's line per delivery, its EMF metrics per invocation; the fan-out's per batch. */
export const WEBHOOK_LINES = {
  delivery: lineBytes({
    level: 'INFO',
    message: 'delivered',
    ...FUNCTION_CONTEXT,
    webhookId: WEBHOOK_ID,
    subscriberId: 'sub_Xk2q9wLrT0aB7cD3eF5gHh',
    plantId: '9007199254740993',
    attempt: 1,
    host: 'receiver.example.com',
  }),
  fanOutBatch: lineBytes({
    level: 'INFO',
    message: 'queued',
    ...FUNCTION_CONTEXT,
    records: 100,
    deliveries: 100,
  }),
  metrics: lineBytes({
    _aws: {
      Timestamp: 1764035592345,
      CloudWatchMetrics: [
        {
          Namespace: 'PlantStore',
          Dimensions: [['service']],
          Metrics: [{ Name: 'WebhooksDelivered', Unit: 'Count' }],
        },
      ],
    },
    service: 'deliver',
    WebhooksDelivered: 100,
  }),
};

/** Lambda's vCPU share at `memoryMB`: one whole vCPU at 1,769 MB. */
const vcpu = (memoryMB: number) => Math.min(1, memoryMB / QUOTAS.lambdaMbPerVcpu.value);

/** The plants table's writes a second, as the stream sees them. */
export interface StreamWrites {
  /** Records that reach the fan-out: creates (INSERT), changes and deletes' marks (MODIFY). */
  readonly records: number;
  /** Writes to the table, which set its partitions and so the stream's shards (a delete is two). */
  readonly writes: number;
  /**
   * Write units a second the table is warm at (`warmWrites`: a new on-demand table's 4,000, or
   * what a plan pre-warms it to): a partition takes 1,000, so a table warm at that has that ÷
   * 1,000 partitions at least, whatever it is written.
   * @default - the writes alone decide
   */
  readonly warm?: number;
}

/** What the webhook asks of the stack at `records` a second with `subscribers`. */
export interface WebhookLoad {
  /**
   * Stream shards: one per partition the table has at least (its writes or its warm throughput
   * ÷ 1,000; the model's assumption that shards follow partitions, which no AWS page states). A
   * table with more partitions has more shards, and more Scans.
   */
  readonly shards: number;
  /** Records in a fan-out batch: what a shard gathers between Lambda's polls, up to the batch size. */
  readonly recordsPerBatch: number;
  readonly fanOutInvocations: number;
  /** SendMessageBatch calls per fan-out batch. */
  readonly callsPerBatch: number;
  /** One fan-out invocation's run time, ms: the Scan, then its calls' rounds or its CPU, whichever is longer. */
  readonly fanOutMs: number;
  /** Records a second one shard's fan-out drains (ParallelizationFactor batches at once). */
  readonly shardCapacity: number;
  readonly deliveries: number;
  readonly deliverInvocations: number;
  /** Deliver invocations at once that the deliveries need (before the mapping's cap). */
  readonly deliverNeeded: number;
  /** Minutes the SQS mapping takes from its first five batches to `deliverNeeded` (300 more a minute). */
  readonly deliverRampMinutes: number;
  readonly sqsRequests: number;
  /** Read units of one fan-out Scan of the subscriptions table (strongly consistent). */
  readonly scanUnits: number;
  /**
   * Fan-out Scans a second: each sandbox reads the list once per `SUBSCRIBERS_FRESH_SECONDS`,
   * counted with ParallelizationFactor sandboxes busy on every shard (the most per shard; the
   * shards themselves are a lower bound).
   */
  readonly scans: number;
  /** Deliver sandboxes at work (the deliverer's concurrency, at least one while it delivers). */
  readonly deliverSandboxes: number;
  /** The deliverer's grants a second (one per sandbox, subscriber and second of work). */
  readonly grants: number;
  /** The deliverer's records of attempts a second (one per sandbox and subscriber per 10 s). */
  readonly attemptRecords: number;
  /** Read and write units a second on the subscriptions table, whose few items share a partition. */
  readonly subscriptionReads: number;
  readonly subscriptionWrites: number;
  /** Write units a second on one subscriber's item (the hottest item). */
  readonly subscriberItemWrites: number;
  readonly logBytes: number;
  /** GB-seconds a second of the fan-out and the deliverer. */
  readonly gbSeconds: number;
}

/**
 * The webhook at `stream` writes a second, `subscribers` that each chose every event (the most a
 * subscriber can be sent: one delivery per record), receivers answering in `latencyMs`.
 *
 * An assumption, as AWS does not document it: a fan-out batch holds what its shard gathered
 * between two polls, whole, though Lambda runs up to ParallelizationFactor (10) batches of a
 * shard at once. Were each poll's records split among them, batches would shrink by up to
 * `split` (10), the fan-out's invocations grow by as much and its calls where a batch's
 * deliveries no longer fill whole calls (`split` models it). The Scans are counted at the most
 * per shard either way: every shard's 10 sandboxes each reading the list once per
 * `SUBSCRIBERS_FRESH_SECONDS`.
 */
export function webhookLoad(
  stream: StreamWrites,
  subscribers: number,
  latencyMs: number,
  split = 1,
): WebhookLoad {
  const { records } = stream;
  const shards = Math.max(
    1,
    Math.ceil(Math.max(stream.writes, stream.warm ?? 0) / QUOTAS.dynamoPartitionWrites.value),
  );
  const perShard = records / shards;
  const gathered = perShard / QUOTAS.streamPollsPerSecond.value;
  const recordsPerBatch = Math.min(STREAM_SOURCE.batchSize, Math.max(1, gathered / split));
  const fanOutInvocations = records > 0 ? records / recordsPerBatch : 0;
  const callsFor = (records: number) => Math.ceil((records * subscribers) / BATCH_ENTRIES);
  const runMs = (records: number) => {
    const calls = callsFor(records);
    const rounds = Math.ceil(calls / FAN_OUT_IN_FLIGHT);
    const cpuMs = (calls * MEASURED.fanOut.cpuMsPerCall) / vcpu(FUNCTIONS['fan-out'].memorySize);
    return (
      DEPLOYED_ASSUMPTIONS.dynamoRoundTripMs +
      Math.max(rounds * DEPLOYED_ASSUMPTIONS.sqsCallMs, cpuMs)
    );
  };
  const fanOutMs = runMs(recordsPerBatch);
  const fullBatch = STREAM_SOURCE.batchSize;
  const shardCapacity = (STREAM_SOURCE.parallelizationFactor * fullBatch * 1000) / runMs(fullBatch);
  const deliveries = records * subscribers;
  // The deliverer holds an invocation for its batch's slowest receiver.
  const deliverInvocations = deliveries / DELIVERY_SOURCE.batchSize;
  const deliverNeeded = (deliverInvocations * latencyMs) / 1000;
  const deliverRampMinutes =
    Math.max(0, deliverNeeded - 5) / QUOTAS.sqsMappingScalingPerMinute.value;
  const perSqsBatch = QUOTAS.sqsBatchMessages.value;
  const sqsRequests =
    fanOutInvocations * callsFor(recordsPerBatch) + (2 * deliveries) / perSqsBatch;
  // A strongly consistent read unit is 4 KB, a write unit 1 KB of the whole item.
  const writeUnits = Math.ceil(SUBSCRIPTION_ITEM_BYTES / 1024);
  const attemptsUnits = Math.ceil(ATTEMPTS_ITEM_BYTES / 1024);
  const scanUnits = Math.ceil(
    (subscribers * (SUBSCRIPTION_ITEM_BYTES + ATTEMPTS_ITEM_BYTES)) / 4096,
  );
  // The subscribers in one deliver batch: each of its sandboxes works for all of them.
  const perBatch = Math.min(subscribers, DELIVERY_SOURCE.batchSize);
  // A sandbox grants itself each subscriber's slots once a second (one conditional write that
  // answers the item: no read; webhook-receiver-state.test.ts counts it) and records their
  // attempts every RECORD_EVERY_MS (the subscriber's item and its attempts item), or once a
  // batch when batches are rarer; a sandbox whose batches come less than once per QUIET_MS
  // also shows each batch's attempts (the attempts item alone).
  const deliverSandboxes =
    deliveries > 0 ? Math.max(1, Math.min(DELIVERY_SOURCE.maxConcurrency, deliverNeeded)) : 0;
  const perSandbox = (everyMs: number) =>
    Math.min(deliverInvocations, (deliverSandboxes * 1000) / everyMs) * perBatch;
  const grants = perSandbox(GRANT_EPOCHS * PACE_EPOCH_MS);
  const recordsOfAttempts = perSandbox(RECORD_EVERY_MS);
  const quietBatches = deliverInvocations < (deliverSandboxes * 1000) / QUIET_MS;
  const attemptsWrites = quietBatches ? deliverInvocations * perBatch : recordsOfAttempts;
  // A sandbox reads a subscriber's item only when what it knows is older than RESERVE_AHEAD_MS:
  // at the start of each batch when its batches last longer than that.
  const reads = latencyMs > RESERVE_AHEAD_MS ? perSandbox(latencyMs) : 0;
  // Each fan-out sandbox Scans once per SUBSCRIBERS_FRESH_SECONDS (at most once a batch); at
  // the most a shard keeps ParallelizationFactor sandboxes busy.
  const fanOutSandboxes = Math.max(
    shards * STREAM_SOURCE.parallelizationFactor,
    Math.ceil((fanOutInvocations * fanOutMs) / 1000),
  );
  const scans = Math.min(fanOutInvocations, fanOutSandboxes / SUBSCRIBERS_FRESH_SECONDS);
  const subscriptionReads = scans * scanUnits + reads * Math.ceil(SUBSCRIPTION_ITEM_BYTES / 4096);
  const subscriptionWrites =
    grants * writeUnits + recordsOfAttempts * writeUnits + attemptsWrites * attemptsUnits;
  const subscriberItemWrites =
    subscribers > 0 ? ((grants + recordsOfAttempts) * writeUnits) / perBatch : 0;
  const logBytes =
    fanOutInvocations * (WEBHOOK_LINES.fanOutBatch + WEBHOOK_LINES.metrics) +
    deliveries * WEBHOOK_LINES.delivery +
    deliverInvocations * WEBHOOK_LINES.metrics;
  const gbSeconds =
    (fanOutInvocations * fanOutMs * FUNCTIONS['fan-out'].memorySize +
      deliverInvocations * latencyMs * FUNCTIONS.deliver.memorySize) /
    1024 /
    1000;
  return {
    shards,
    recordsPerBatch,
    fanOutInvocations,
    callsPerBatch: callsFor(recordsPerBatch),
    fanOutMs,
    shardCapacity,
    deliveries,
    deliverInvocations,
    deliverNeeded,
    deliverRampMinutes,
    sqsRequests,
    scanUnits,
    scans,
    deliverSandboxes,
    grants,
    attemptRecords: recordsOfAttempts,
    subscriptionReads,
    subscriptionWrites,
    subscriberItemWrites,
    logBytes,
    gbSeconds,
  };
}
