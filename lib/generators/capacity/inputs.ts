/**
 * What the capacity model is computed from: AWS's published quotas and prices (each with the page
 * it is read from), the figures the bench measured (`measurements/bench.json`), and the few
 * settings only a deployed stage can tell (named as such). Change a figure and `npm run
 * capacity` prints the new tables; `npm run generate` writes them into docs/capacity.md.
 */
import { readMeasurements } from '../../lab/measurements';

/** Where and when the prices were read. */
export const PRICES_AS_OF = { region: 'us-east-1 (US East, N. Virginia)', read: 'November 2026' };

/** A figure and the AWS page that publishes it. */
export interface Sourced<T = number> {
  readonly value: T;
  readonly source: string;
}

/** List prices, us-east-1, in USD. */
export const PRICES = {
  /** HTTP API requests per million: the first 300 million a month, and beyond. */
  httpApiPerMillion: {
    value: { first300M: 1.0, beyond: 0.9 },
    source: 'https://aws.amazon.com/api-gateway/pricing/',
  },
  lambdaRequestPerMillion: { value: 0.2, source: 'https://aws.amazon.com/lambda/pricing/' },
  /** Arm duration per GB-second by monthly tier: first 7.5 billion GB-s, next 11.25 billion, beyond. */
  lambdaArmGbSecond: {
    value: [
      { upTo: 7.5e9, price: 0.0000133334 },
      { upTo: 18.75e9, price: 0.0000120001 },
      { upTo: Infinity, price: 0.0000106667 },
    ],
    source: 'https://aws.amazon.com/lambda/pricing/',
  },
  dynamoWriteUnitPerMillion: {
    value: 0.625,
    source: 'https://aws.amazon.com/dynamodb/pricing/on-demand/',
  },
  dynamoReadUnitPerMillion: {
    value: 0.125,
    source: 'https://aws.amazon.com/dynamodb/pricing/on-demand/',
  },
  /** Standard queue requests per million (each 64 KB chunk of a request is one). */
  sqsRequestPerMillion: { value: 0.4, source: 'https://aws.amazon.com/sqs/pricing/' },
  /** Lambda's logs to CloudWatch Logs (Standard class), per GB by monthly tier (since 1 May 2025). */
  lambdaLogsPerGb: {
    value: [
      { upTo: 10 * 1024, price: 0.5 },
      { upTo: 30 * 1024, price: 0.25 },
      { upTo: 50 * 1024, price: 0.1 },
      { upTo: Infinity, price: 0.05 },
    ],
    source:
      'https://aws.amazon.com/cloudwatch/pricing/ and https://aws.amazon.com/blogs/compute/aws-lambda-introduces-tiered-pricing-for-amazon-cloudwatch-logs-and-additional-logging-destinations/',
  },
  /** Other logs (the API's access log), Standard class, per GB. */
  customLogsPerGb: { value: 0.5, source: 'https://aws.amazon.com/cloudwatch/pricing/' },
} as const satisfies Record<string, Sourced<unknown>>;

/** Default quotas (per account and Region unless said), and the limits that cannot be raised. */
export const QUOTAS = {
  lambdaConcurrency: {
    value: 1_000,
    source: 'https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html',
  },
  /** Invocations a second across the account's functions: this many times its concurrency. */
  lambdaRequestsPerConcurrency: {
    value: 10,
    source: 'https://docs.aws.amazon.com/lambda/latest/dg/lambda-concurrency.html',
  },
  /**
   * Synchronous invocations a second of one function: "Each instance of your execution environment
   * can serve up to 10 requests per second. In other words, the total invocation limit is 10 times
   * your concurrency limit" ("Invocation requests per function per Region (synchronous)"); a
   * function with reserved concurrency is invoked at most 10 times its reservation a second.
   */
  lambdaFunctionRequestsPerConcurrency: {
    value: 10,
    source: 'https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html',
  },
  /** New execution environments per function: 1,000 every 10 seconds. */
  lambdaScalingPer10s: {
    value: 1_000,
    source: 'https://docs.aws.amazon.com/lambda/latest/dg/scaling-behavior.html',
  },
  /** ... or 10,000 more requests a second every 10 seconds, per function. */
  lambdaScalingRequestsPer10s: {
    value: 10_000,
    source: 'https://docs.aws.amazon.com/lambda/latest/dg/scaling-behavior.html',
  },
  /** Memory at which a function has one whole vCPU (Lambda gives CPU in proportion to memory). */
  lambdaMbPerVcpu: {
    value: 1_769,
    source: 'https://docs.aws.amazon.com/lambda/latest/dg/configuration-memory.html',
  },
  /** Lambda keeps this much of the account's concurrency unreserved. */
  lambdaUnreserved: {
    value: 100,
    source: 'https://docs.aws.amazon.com/lambda/latest/dg/configuration-concurrency.html',
  },
  /** Requests per second across all the account's REST, HTTP and WebSocket APIs in the Region. */
  apiGatewayRps: {
    value: 10_000,
    source: 'https://docs.aws.amazon.com/apigateway/latest/developerguide/limits.html',
  },
  /**
   * Each partition: 1,000 write units or 3,000 read units a second, or a linear combination
   * (cannot be raised).
   */
  dynamoPartitionWrites: {
    value: 1_000,
    source:
      'https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/warm-throughput-scenarios.html',
  },
  /**
   * A global secondary index's partition takes 1,000 write units a second as a table's does; all
   * the plants of one tag share one index partition key (the byTag index), and an index that
   * cannot take its writes throttles the writes to the table itself (GSI back-pressure).
   */
  dynamoIndexPartitionWrites: {
    value: 1_000,
    source: 'https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/gsi-throttling.html',
  },
  dynamoPartitionReads: {
    value: 3_000,
    source:
      'https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/warm-throughput-scenarios.html',
  },
  /**
   * What a new on-demand table sustains at once: "up to 4,000 writes per second and 12,000 reads
   * per second" — two limits, as AWS states them (pre-warming raises them). A new on-demand
   * global secondary index has warm throughput of its own (warm-throughput.html); the model
   * assumes it starts at the table's 4,000 writes (a deployed stage's DescribeTable shows it).
   */
  dynamoNewTableWrites: {
    value: 4_000,
    source:
      'https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/pre-warming-on-demand-capacity-mode.html',
  },
  dynamoNewTableReads: {
    value: 12_000,
    source:
      'https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/pre-warming-on-demand-capacity-mode.html',
  },
  /** A table's read and write units a second each (quotas L-CF0CBE56, L-AB614373). */
  dynamoTableMax: {
    value: 40_000,
    source: 'https://docs.aws.amazon.com/general/latest/gr/ddb.html',
  },
  /** Lambda reads each stream shard this many times a second. */
  streamPollsPerSecond: {
    value: 4,
    source: 'https://docs.aws.amazon.com/lambda/latest/dg/with-ddb.html',
  },
  /** An SQS event source mapping's maximum concurrency setting. */
  sqsMappingMaxConcurrency: {
    value: 1_000,
    source: 'https://docs.aws.amazon.com/lambda/latest/dg/API_ScalingConfig.html',
  },
  /** The SQS mapping starts at five concurrent batches and adds up to 300 a minute. */
  sqsMappingScalingPerMinute: {
    value: 300,
    source: 'https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-scaling.html',
  },
  /** Messages one ReceiveMessage returns, and entries of one DeleteMessageBatch, at most. */
  sqsBatchMessages: {
    value: 10,
    source:
      'https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/quotas-messages.html',
  },
} as const satisfies Record<string, Sourced>;

/**
 * The quotas to raise for a level, in the order to raise them, with their Service Quotas codes
 * (https://docs.aws.amazon.com/servicequotas/latest/userguide/intro.html) and why that order.
 */
export const QUOTA_CODES = [
  {
    quota: 'dynamoTableMax',
    code: 'L-AB614373 (writes), L-CF0CBE56 (reads)',
    name: 'DynamoDB table-level write and read throughput',
    why: 'first: the table and its byTag index are each pre-warmed only up to this quota (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/warm-throughput.html), and a pre-warm is asynchronous: it must be ACTIVE before the peak (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/update-warm-throughput.html)',
  },
  {
    quota: 'lambdaConcurrency',
    code: 'L-B99A9384',
    name: 'Lambda concurrent executions (its requests a second are 10 times it)',
    why: `before the deployment: a preset reserves concurrency, and the deployment fails if that leaves less than 100 unreserved (${QUOTAS.lambdaUnreserved.source}); the figure is this stack's: add what the account already reserves, and check a new account's lower quota (below)`,
  },
  {
    quota: 'apiGatewayRps',
    code: 'L-8A5B8E43',
    name: 'API Gateway throttle rate (account, all APIs)',
    why: 'before the traffic: the stage throttle of a preset is above the default (its burst bucket follows the rate and cannot be asked for)',
  },
] as const satisfies readonly {
  quota: keyof typeof QUOTAS;
  code: string;
  name: string;
  why: string;
}[];

/**
 * What the bench measured (`measurements/bench.json`, written by `npm run bench -- --phases
 * request,fan-out --write-measurements`): per invocation of each function on the request path,
 * its warm handler time, the bytes it logs and the DynamoDB capacity units it spends; and the
 * fan-out's CPU per SendMessageBatch. Each part says the machine, the Node and the time.
 */
export const MEASURED = readMeasurements();

/**
 * What only a deployed stage can tell; the procedure in docs/capacity.md measures each (the
 * platform.report lines' durationMs, the webhook receivers' answer times).
 */
export const DEPLOYED_ASSUMPTIONS = {
  /** Added to each measured handler time for its DynamoDB round trip in the Region. */
  dynamoRoundTripMs: 5,
  /** One SQS call's round trip in the Region (what the fan-out bench gives the local SQS). */
  sqsCallMs: 10,
  /** How long a receiver takes to answer a webhook, for the cost table. */
  receiverLatencyMs: 200,
  /** Distinct tokens sending requests, for the cost table. */
  activeTokens: 1_000,
  /** Subscribers, each receiving every event (newPlant, plantUpdated, plantDeleted), for the cost table. */
  subscribers: 1,
  /**
   * The share of creates, changes and deletes whose plant has a tag: each also writes the byTag
   * index (one more write unit; a change that moves the tag, two). All: the upper bound.
   */
  taggedShare: 1,
  /** The share of tagged writes that carry the most common tag: one index partition takes them. */
  hottestTagShare: 0.25,
};

/** The levels the document models, in creates a second. */
export const LEVELS = [100, 1_000, 10_000, 100_000] as const;

/** Seconds in the month the monthly tiers are counted over (30 days). */
export const SECONDS_PER_MONTH = 30 * 24 * 3600;
