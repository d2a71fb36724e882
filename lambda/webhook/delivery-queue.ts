/** The SQS client the webhook functions use, and the delivery and dead-letter queues through it. */
import {
  ChangeMessageVisibilityCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SQSClient,
  type SQSClientConfig,
} from '@aws-sdk/client-sqs';
import { SDK_CLIENT_OPTIONS } from '../aws/sdk-client';
import type { MethodActions } from '../aws/table-definition';
import type { DeliveryMessage } from './message';
import { bodyBytes, queueBody, sqsBatches } from './queue-body';

/** One entry of a SendMessageBatch: an id unique in its call, the delivery, and its body as sent. */
export interface BatchEntry {
  readonly id: string;
  readonly message: DeliveryMessage;
  /** `queueBody(message)`, written once by the sender (it sizes its calls by it). */
  readonly body: string;
}

/** An entry the queue refused, and whether sending it again can ever help. */
export interface RefusedEntry {
  readonly id: string;
  /**
   * SQS's `SenderFault`: the entry itself is wrong (our bug), and the same entry will be
   * refused again. Otherwise the queue failed on its side (throttled, an internal error).
   */
  readonly senderFault: boolean;
  readonly reason: string;
}

/** The delivery queue, as the fan-out and deliver functions use it. */
export interface DeliveryQueue {
  /**
   * One SendMessageBatch of at most `BATCH_ENTRIES` entries and 256 KiB in all (`sqsBatches`),
   * each entry's `body` being `queueBody(message)`; answers the entries the queue refused (the
   * others are queued). Throws when the call itself failed after the client's retries: then any
   * of its entries may or may not have been queued.
   */
  sendBatch(entries: readonly BatchEntry[]): Promise<RefusedEntry[]>;
  /**
   * Queues deliveries (one message each), at most ten a call and 256 KiB in all, one call after
   * another; throws unless every one was accepted (one larger than SQS takes: at once).
   */
  send(messages: readonly DeliveryMessage[]): Promise<void>;
  /** Makes a received message visible again after `seconds`. */
  retryAfter(receiptHandle: string, seconds: number): Promise<void>;
}

/** The dead-letter queue: where the deliver function puts a delivery after its last attempt. */
export interface DeadLetters {
  deadLetter(message: DeliveryMessage): Promise<void>;
}

/** The SQS actions of each method (a function given a method is granted them on the queue). */
export const DELIVERY_QUEUE_ACTIONS = {
  send: ['sqs:SendMessage'],
  // SendMessageBatch is authorized as sqs:SendMessage.
  sendBatch: ['sqs:SendMessage'],
  retryAfter: ['sqs:ChangeMessageVisibility'],
} as const satisfies MethodActions<DeliveryQueue>;

/** The SQS actions of the dead-letter queue's method. */
export const DEAD_LETTERS_ACTIONS = {
  deadLetter: ['sqs:SendMessage'],
} as const satisfies MethodActions<DeadLetters>;

/** The SQS actions of a JSON queue's method (`sqsJsonQueue`). */
export const JSON_QUEUE_ACTIONS = {
  put: ['sqs:SendMessage'],
} as const satisfies MethodActions<ReturnType<typeof sqsJsonQueue>>;

/** The SQS client's attempts of a call, and how long each may take, connecting included. */
export const SQS_ATTEMPTS = 3;
export const SQS_ATTEMPT_TIMEOUT_MS = 2_000;
/**
 * The longest the SDK's standard retry strategy pauses between attempts: when throttled, at most
 * 1 s before the second attempt and 2 s before the third (its backoff base is 1 s for throttling,
 * 50 ms otherwise, doubling).
 */
const SQS_RETRY_PAUSES_MS = 3_000;
/**
 * The longest one call of the client takes: every attempt's timeout and the pauses between. The
 * SDK may pause longer when SQS answers with a retry hint, and a response that stalls after its
 * headers has no timeout of its own: every call is aborted at this bound whatever happens.
 */
export const SQS_CALL_MAX_MS = SQS_ATTEMPTS * SQS_ATTEMPT_TIMEOUT_MS + SQS_RETRY_PAUSES_MS;

/** The options of every call: aborted at `SQS_CALL_MAX_MS`. */
const bounded = () => ({ abortSignal: AbortSignal.timeout(SQS_CALL_MAX_MS) });

/**
 * The SQS client of the webhook functions: three attempts of a call, each given up after 2 s from
 * when its request starts, connecting included (a call takes milliseconds; one that hangs is sent
 * again rather than holding the invocation), and sockets enough for the fan-out's calls in flight.
 */
export function makeSqsClient(config: SQSClientConfig = {}): SQSClient {
  return new SQSClient({
    ...SDK_CLIENT_OPTIONS,
    maxAttempts: SQS_ATTEMPTS,
    requestHandler: {
      connectionTimeout: 1_000,
      requestTimeout: SQS_ATTEMPT_TIMEOUT_MS,
      throwOnRequestTimeout: true,
      httpAgent: { keepAlive: true, maxSockets: 64 },
      httpsAgent: { keepAlive: true, maxSockets: 64 },
    },
    ...config,
  });
}

/** The queue at `queueUrl` (the endpoint comes from the SDK's settings, the local queue's too). */
export function sqsDeliveryQueue(queueUrl: string, client = makeSqsClient()): DeliveryQueue {
  const sendBatch: DeliveryQueue['sendBatch'] = async (entries) => {
    const { Failed = [] } = await client.send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: entries.map(({ id, body }) => ({ Id: id, MessageBody: body })),
      }),
      bounded(),
    );
    return Failed.map((failed) => ({
      id: failed.Id ?? '',
      senderFault: failed.SenderFault === true,
      reason: `${failed.Code ?? ''} ${failed.Message ?? ''}`.trim(),
    }));
  };
  return {
    sendBatch,
    async send(messages) {
      const bodies = messages.map(queueBody);
      const batches = sqsBatches(
        bodies.map((_, n) => n),
        bodies.map(bodyBytes),
      );
      for (const batch of batches) {
        const refused = await sendBatch(
          batch.map((n) => ({ id: String(n), message: messages[n]!, body: bodies[n]! })),
        );
        if (refused.length > 0) {
          throw new Error(`the queue refused ${refused.length} deliveries: ${refused[0]!.reason}`);
        }
      }
    },
    async retryAfter(receiptHandle, seconds) {
      await client.send(
        new ChangeMessageVisibilityCommand({
          QueueUrl: queueUrl,
          ReceiptHandle: receiptHandle,
          VisibilityTimeout: seconds,
        }),
        bounded(),
      );
    },
  };
}

/**
 * A queue that takes one JSON document per message: the dead-letter queue (a delivery given up,
 * kept with a fresh count so that a redrive gives it the whole schedule again) or the stream
 * failure queue (a stream record the fan-out can never turn into deliveries, whole).
 */
export function sqsJsonQueue(queueUrl: string, client = makeSqsClient()) {
  return {
    async put(document: unknown): Promise<void> {
      await client.send(
        new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: queueBody(document) }),
        bounded(),
      );
    },
  };
}

/** The dead-letter queue at `queueUrl`. */
export function sqsDeadLetters(queueUrl: string, client?: SQSClient): DeadLetters {
  const queue = sqsJsonQueue(queueUrl, client);
  return {
    deadLetter: ({ webhookId, subscriberId, plantId, body }) =>
      queue.put({ webhookId, subscriberId, plantId, body } satisfies DeliveryMessage),
  };
}
