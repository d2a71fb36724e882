/** The SQS client the webhook functions use, and the delivery queue through it. */
import {
  ChangeMessageVisibilityCommand,
  SendMessageBatchCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import type { DeliveryMessage } from './message';

/** The delivery queue, as the fan-out and deliver functions use it. */
export interface DeliveryQueue {
  /** Queues deliveries (one message each); throws unless every one was accepted. */
  send(messages: readonly DeliveryMessage[]): Promise<void>;
  /** Makes a received message visible again after `seconds` (its next attempt). */
  retryAfter(receiptHandle: string, seconds: number): Promise<void>;
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
