/** The SQS client the webhook functions use, and the delivery and dead-letter queues through it. */
import {
  ChangeMessageVisibilityCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import type { DeliveryMessage } from './message';

/** The delivery queue, as the fan-out and deliver functions use it. */
export interface DeliveryQueue {
  /** Queues deliveries (one message each); throws unless every one was accepted. */
  send(messages: readonly DeliveryMessage[]): Promise<void>;
  /** Makes a received message visible again after `seconds`. */
  retryAfter(receiptHandle: string, seconds: number): Promise<void>;
}

/** The dead-letter queue: where the deliver function puts a delivery after its last attempt. */
export interface DeadLetters {
  deadLetter(message: DeliveryMessage): Promise<void>;
}

/** SendMessageBatch takes at most ten entries. */
const BATCH = 10;

/** The queue at `queueUrl` (the endpoint comes from the SDK's settings, the local queue's too). */
export function sqsDeliveryQueue(
  queueUrl: string,
  client = new SQSClient({ maxAttempts: 3 }),
): DeliveryQueue {
  return {
    async send(messages) {
      for (let start = 0; start < messages.length; start += BATCH) {
        const chunk = messages.slice(start, start + BATCH);
        const { Failed = [] } = await client.send(
          new SendMessageBatchCommand({
            QueueUrl: queueUrl,
            Entries: chunk.map((message, n) => ({
              Id: String(n),
              MessageBody: JSON.stringify(message),
            })),
          }),
        );
        if (Failed.length > 0) {
          throw new Error(
            `the queue refused ${Failed.length} deliveries: ${Failed[0]!.Code ?? ''} ${Failed[0]!.Message ?? ''}`,
          );
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
      );
    },
  };
}

/**
 * A queue that takes one JSON document per message: the dead-letter queue (a delivery given up,
 * kept with a fresh count so that a redrive gives it the whole schedule again) or the stream
 * failure queue (a stream record the fan-out can never turn into deliveries, whole).
 */
export function sqsJsonQueue(queueUrl: string, client = new SQSClient({ maxAttempts: 3 })) {
  return {
    async put(document: unknown): Promise<void> {
      await client.send(
        new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(document) }),
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
