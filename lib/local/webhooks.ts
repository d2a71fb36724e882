/**
 * The newPlant webhook on one machine: the plants stream (`stream.ts`) feeding the fan-out, the
 * delivery queue and its dead-letter queue (`queue.ts`, reachable over SQS's protocol on the
 * engine's port) feeding the deliver function, with the mappings' settings from `lib/definitions/webhooks.ts`.
 * The functions are the same bundles, in the same sandbox pools, as every other function.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SQSEvent } from 'aws-lambda';
import { PLANTS_TABLE } from '../../lambda/aws/tables';
import { WEBHOOK_ENVIRONMENT } from '../../lambda/webhook/config';
import { FUNCTIONS, FUNCTION_NAMES, type FunctionName } from '../definitions/functions';
import { DELIVERY_SOURCE, STREAM_SOURCE } from '../definitions/webhooks';
import { startEngine, type Engine, type EngineOptions } from './dynamodb/engine';
import { LOCAL_QUEUE_NAMES, LOCAL_SECRETS_KEY_ALIAS, localQueueUrl } from './names';
import { localQueueArn } from './sqs/access';
import { LocalQueue, type QueueMessage } from './sqs/queue';
import { serveSqs, SQS_TARGET_PREFIX } from './sqs/api';
import { LocalStream } from './dynamodb/stream';
import type { ItemChange } from './dynamodb/item-changes';

/** The local queues' names (their URLs are on the engine's endpoint). */
export { localQueueArn };

/** What the webhook emulation needs. */
export interface LocalWebhooksOptions {
  /** `PLANT_STORE_WEBHOOK_RETRY_SCALE`: multiplies the retry delays. @default 1 */
  readonly retryScale?: number;
  /** The deliver function's sandbox limit: the poller never starts more invocations. */
  readonly concurrency: number;
  readonly log: (line: string) => void;
}

type Invoke = (name: FunctionName, event: unknown) => Promise<unknown>;

/** The stream, the queues and their mappings. */
export class LocalWebhooks {
  private queues:
    { deliveries: LocalQueue; deadLetters: LocalQueue; streamFailures: LocalQueue } | undefined;
  private stream: LocalStream | undefined;
  private invoke: Invoke | undefined;
  private inFlight = new Set<Promise<void>>();
  private stopped = false;
  /** The batching window's wake-up, while a short batch waits for more messages. */
  private gathering: NodeJS.Timeout | undefined;

  constructor(private readonly options: LocalWebhooksOptions) {}

  /**
   * The engine's hook (`EngineOptions.intercept`): answers SQS requests itself (true) and leaves
   * DynamoDB requests to the engine (false).
   */
  readonly intercept = (req: IncomingMessage, res: ServerResponse): boolean => {
    const target = String(req.headers['x-amz-target'] ?? '');
    if (!target.startsWith(SQS_TARGET_PREFIX)) return false;
    serveSqs(req, res, this.queues ? Object.values(this.queues) : []);
    return true;
  };

  /** The engine's other hook (`EngineOptions.onItemChange`): each item write, to the stream. */
  readonly onItemChange = (change: ItemChange): void => this.stream?.record(change);

  /** Creates the queues on the engine's endpoint; answers the webhook functions' environment. */
  attach(endpoint: string): Record<string, string> {
    const make = (name: string, extra: Partial<ConstructorParameters<typeof LocalQueue>[0]> = {}) =>
      new LocalQueue({
        name,
        url: localQueueUrl(endpoint, name),
        arn: localQueueArn(name),
        visibilityTimeoutSeconds: DELIVERY_SOURCE.visibilityTimeoutSeconds,
        scale: this.options.retryScale ?? 1,
        ...extra,
      });
    const deadLetters = make(LOCAL_QUEUE_NAMES.deadLetters);
    const deliveries = make(LOCAL_QUEUE_NAMES.deliveries, {
      deadLetter: { queue: deadLetters, maxReceiveCount: DELIVERY_SOURCE.maxReceiveCount },
    });
    const streamFailures = make(LOCAL_QUEUE_NAMES.streamFailures);
    this.queues = { deliveries, deadLetters, streamFailures };
    return localWebhookEnvironment(triggered('delivery-queue'), endpoint, this.options.retryScale);
  }

  /** Starts the mappings: the stream to the fan-out, the delivery queue to the deliverer. */
  start(invoke: Invoke): void {
    if (!this.queues) throw new Error('attach the webhook queues before starting them');
    this.invoke = invoke;
    const fanOut = triggered('plants-stream');
    this.stream = new LocalStream({
      tableName: PLANTS_TABLE.localName,
      invoke: (event) => invoke(fanOut, event),
      scale: this.options.retryScale ?? 1,
      maxRecordAgeMs: localMaxRecordAgeMs(this.options.retryScale ?? 1),
      log: this.options.log,
      // Lambda's on-failure destination: where the record was, not the plant.
      onGiveUp: (record) =>
        this.queues?.streamFailures.send(
          JSON.stringify({
            requestContext: { condition: 'RecordAgeExceeded' },
            DDBStreamBatchInfo: {
              startSequenceNumber: record.dynamodb?.SequenceNumber,
              endSequenceNumber: record.dynamodb?.SequenceNumber,
              approximateArrivalOfFirstRecord: record.dynamodb?.ApproximateCreationDateTime,
              batchSize: 1,
              streamArn: record.eventSourceARN,
            },
          }),
        ),
    });
    this.queues.deliveries.onAvailable(() => this.poll());
    this.poll();
  }

  /** Stops polling and waits for the invocations in flight and the stream's batch. */
  async close(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.gathering);
    await this.stream?.close();
    await Promise.all(this.inFlight);
    for (const queue of Object.values(this.queues ?? {})) queue.close();
  }

  /**
   * Receives batches while there are visible messages and room for another invocation, as the
   * mapping does: a full batch at once, a short one when its first message has waited the
   * batching window.
   */
  private poll(): void {
    const queue = this.queues?.deliveries;
    if (!queue || !this.invoke || this.stopped) return;
    const limit = Math.min(DELIVERY_SOURCE.maxConcurrency, this.options.concurrency);
    while (this.inFlight.size < limit) {
      const { visible, visibleSince } = queue.counts();
      if (visibleSince === undefined) return;
      const due = visibleSince + DELIVERY_SOURCE.maxBatchingWindowSeconds * 1000;
      if (visible < DELIVERY_SOURCE.batchSize && Date.now() < due) {
        clearTimeout(this.gathering);
        this.gathering = setTimeout(() => this.poll(), due - Date.now() + 1);
        return;
      }
      const batch = queue.receive(DELIVERY_SOURCE.batchSize);
      // Empty when every visible message was moved to the dead-letter queue instead: look again.
      if (batch.length === 0) continue;
      const running: Promise<void> = this.deliver(queue, batch).finally(() => {
        this.inFlight.delete(running);
        this.poll();
      });
      this.inFlight.add(running);
    }
  }

  /** One invocation; what it did not report failed is deleted, as Lambda's mapping does. */
  private async deliver(queue: LocalQueue, batch: QueueMessage[]): Promise<void> {
    const event: SQSEvent = {
      Records: batch.map((message) => ({
        messageId: message.messageId,
        receiptHandle: message.receiptHandle!,
        body: message.body,
        attributes: {
          ApproximateReceiveCount: String(message.receiveCount),
          SentTimestamp: String(message.sentAt),
          SenderId: 'local',
          ApproximateFirstReceiveTimestamp: String(message.firstReceivedAt ?? Date.now()),
        },
        messageAttributes: {},
        md5OfBody: message.md5OfBody,
        eventSource: 'aws:sqs',
        eventSourceARN: queue.options.arn,
        awsRegion: 'local',
      })),
    };
    let failed: Set<unknown>;
    try {
      const answer = (await this.invoke!(triggered('delivery-queue'), event)) as {
        batchItemFailures?: { itemIdentifier?: unknown }[];
      } | null;
      failed = new Set((answer?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
      // An identifier that names no message of the batch (missing, empty, another id) fails
      // the whole batch, as Lambda treats such a response.
      const ids = new Set(batch.map((message) => message.messageId));
      if ([...failed].some((id) => typeof id !== 'string' || !ids.has(id))) {
        throw new Error('batchItemFailures names an identifier not in the batch');
      }
    } catch (error) {
      // The whole batch comes back after its visibility timeout, as on Lambda (scaled).
      this.options.log(`deliver failed: ${(error as Error).message}`);
      queue.unsettled(batch.map((message) => message.receiptHandle!));
      return;
    }
    // Done: deleted. Reported failed: back after the receive's visibility timeout, scaled, as
    // the whole batch of a failed invocation (a visibility the function changed keeps its change).
    const unsettled: string[] = [];
    for (const message of batch) {
      if (failed.has(message.messageId)) unsettled.push(message.receiptHandle!);
      else queue.delete(message.receiptHandle!);
    }
    if (unsettled.length > 0) queue.unsettled(unsettled);
  }
}

/**
 * The engine with the webhook queues on its port and nothing polling them (`npm run db`, for
 * `sam local`): what an invoked fan-out sends stays on the delivery queue until it is received,
 * and no write to the plants table invokes anything.
 */
export async function startEngineWithQueues(options: EngineOptions = {}): Promise<Engine> {
  // Never started: no stream, no poller, so neither the concurrency nor the log is used.
  const webhooks = new LocalWebhooks({ concurrency: 1, log: () => undefined });
  const engine = await startEngine({ ...options, intercept: webhooks.intercept });
  webhooks.attach(engine.endpoint);
  return {
    ...engine,
    close: async () => {
      await webhooks.close();
      await engine.close();
    },
  };
}

/**
 * The variables that point a function at the local webhook queues served on `endpoint` (the
 * SQS endpoint, the delivery queue's URL and the fan-out's failure queue's or the deliverer's
 * dead-letter queue's, loopback receivers allowed); none for a function no
 * webhook event source triggers.
 */
export function localWebhookEnvironment(
  name: FunctionName,
  endpoint: string,
  retryScale = 1,
): Record<string, string> {
  const trigger = FUNCTIONS[name].trigger;
  // The local KMS serves the secrets key on the engine's port, under the alias the stack gives it.
  const key: Record<string, string> = FUNCTIONS[name].keys?.secrets
    ? { AWS_ENDPOINT_URL_KMS: endpoint, [WEBHOOK_ENVIRONMENT.secretsKey]: LOCAL_SECRETS_KEY_ALIAS }
    : {};
  if (!trigger) return key;
  // As the stack gives them: the fan-out its failure queue, the deliverer its dead letters.
  const [variable, queue] =
    trigger === 'plants-stream'
      ? [WEBHOOK_ENVIRONMENT.streamFailureQueueUrl, LOCAL_QUEUE_NAMES.streamFailures]
      : [WEBHOOK_ENVIRONMENT.deadLetterQueueUrl, LOCAL_QUEUE_NAMES.deadLetters];
  return {
    AWS_ENDPOINT_URL_SQS: endpoint,
    [WEBHOOK_ENVIRONMENT.queueUrl]: localQueueUrl(endpoint, LOCAL_QUEUE_NAMES.deliveries),
    [variable]: localQueueUrl(endpoint, queue),
    [WEBHOOK_ENVIRONMENT.allowLoopback]: 'true',
    [WEBHOOK_ENVIRONMENT.retryScale]: String(retryScale),
    // The fan-out reads the subscribers on every batch: a local `webhook add` does not wait.
    [WEBHOOK_ENVIRONMENT.subscribersFreshSeconds]: '0',
    ...key,
  };
}

/** The function a webhook event source invokes (exactly one per source in the registry). */
function triggered(trigger: 'plants-stream' | 'delivery-queue'): FunctionName {
  const name = FUNCTION_NAMES.find((n) => FUNCTIONS[n].trigger === trigger);
  if (!name) throw new Error(`no function in the registry is triggered by ${trigger}`);
  return name;
}

/**
 * The stream mapping's maximum record age, scaled like the retry delays, but never under 60 s
 * (Lambda's own minimum): a small scale must not turn an outage of a few seconds into records
 * given up.
 */
export function localMaxRecordAgeMs(scale: number): number {
  return Math.max(60_000, STREAM_SOURCE.maxRecordAgeSeconds * 1000 * scale);
}
