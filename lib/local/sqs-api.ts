/**
 * The part of SQS's JSON protocol (`x-amz-target: AmazonSQS.<Action>`) that the webhook
 * functions and `npm run webhook -- dead-letters` call, answered from the local queues. It is
 * served on the engine's port, so one endpoint is both `AWS_ENDPOINT_URL_DYNAMODB` and
 * `AWS_ENDPOINT_URL_SQS` locally.
 */
import type { LocalQueue, QueueMessage } from './queue';

/** An answer in SQS's JSON protocol. */
export interface SqsAnswer {
  readonly status: number;
  readonly body: unknown;
  readonly queryError?: string;
}

/** The `x-amz-target` prefix of SQS's JSON protocol. */
export const SQS_TARGET_PREFIX = 'AmazonSQS.';

type Input = Record<string, unknown>;

function fault(type: string, message: string, queryError: string): SqsAnswer {
  return { status: 400, body: { __type: `com.amazonaws.sqs#${type}`, message }, queryError };
}

/** Answers one SQS action against `queues` (by name; the URL's last segment names the queue). */
export function answerSqs(action: string, input: Input, queues: readonly LocalQueue[]): SqsAnswer {
  const byUrl = (url: unknown) =>
    queues.find(
      (q) =>
        q.name ===
        String(url ?? '')
          .split('/')
          .pop(),
    );
  const byArn = (arn: unknown) => queues.find((q) => q.options.arn === arn);
  const missing = () =>
    fault(
      'QueueDoesNotExist',
      'The specified queue does not exist.',
      'AWS.SimpleQueueService.NonExistentQueue;Sender',
    );
  const badHandle = () =>
    fault(
      'ReceiptHandleIsInvalid',
      'The receipt handle is not valid.',
      'ReceiptHandleIsInvalid;Sender',
    );
  const ok = (body: unknown = {}): SqsAnswer => ({ status: 200, body });

  if (action === 'GetQueueUrl') {
    const queue = byUrl(input.QueueName);
    return queue ? ok({ QueueUrl: queue.options.url }) : missing();
  }
  if (action === 'StartMessageMoveTask') {
    const source = byArn(input.SourceArn);
    const destination = input.DestinationArn
      ? byArn(input.DestinationArn)
      : queues.find((q) => q.options.deadLetter?.queue === source);
    if (!source || !destination) return missing();
    source.moveAllTo(destination);
    return ok({ TaskHandle: `local-${Date.now()}` });
  }
  const queue = byUrl(input.QueueUrl);
  if (!queue) return missing();
  switch (action) {
    case 'SendMessage': {
      const sent = queue.send(String(input.MessageBody ?? ''));
      return ok({ MessageId: sent.messageId, MD5OfMessageBody: sent.md5OfBody });
    }
    case 'SendMessageBatch': {
      const entries = (input.Entries ?? []) as { Id: string; MessageBody: string }[];
      return ok({
        Successful: entries.map((entry) => {
          const sent = queue.send(entry.MessageBody);
          return { Id: entry.Id, MessageId: sent.messageId, MD5OfMessageBody: sent.md5OfBody };
        }),
        Failed: [],
      });
    }
    case 'ReceiveMessage': {
      const max = Number(input.MaxNumberOfMessages ?? 1);
      const visibility =
        input.VisibilityTimeout === undefined ? undefined : Number(input.VisibilityTimeout);
      return ok({ Messages: queue.receive(max, visibility).map(sqsMessage) });
    }
    case 'DeleteMessage':
      return queue.delete(String(input.ReceiptHandle)) ? ok() : badHandle();
    case 'ChangeMessageVisibility':
      return queue.changeVisibility(String(input.ReceiptHandle), Number(input.VisibilityTimeout))
        ? ok()
        : badHandle();
    case 'GetQueueAttributes': {
      const { visible, invisible } = queue.counts();
      return ok({
        Attributes: {
          QueueArn: queue.options.arn,
          ApproximateNumberOfMessages: String(visible),
          ApproximateNumberOfMessagesNotVisible: String(invisible),
        },
      });
    }
    default:
      return fault(
        'UnsupportedOperation',
        `the local queue does not support ${action}`,
        'AWS.SimpleQueueService.UnsupportedOperation;Sender',
      );
  }
}

/** A message as ReceiveMessage answers it. */
function sqsMessage(message: QueueMessage) {
  return {
    MessageId: message.messageId,
    ReceiptHandle: message.receiptHandle,
    MD5OfBody: message.md5OfBody,
    Body: message.body,
    Attributes: {
      ApproximateReceiveCount: String(message.receiveCount),
      SentTimestamp: String(message.sentAt),
      ApproximateFirstReceiveTimestamp: String(message.firstReceivedAt ?? Date.now()),
      SenderId: 'local',
    },
  };
}
