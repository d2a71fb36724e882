/**
 * `npm run webhook -- dead-letters [--redrive [<webhook-id>]]`: lists the deliveries on a
 * dead-letter queue (each received, then made visible again, so listing changes nothing) and
 * redrives them to the queue they came from: all with SQS's StartMessageMoveTask, or one by its
 * webhook-id, sent again as it was and then deleted from the dead letters.
 */
import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  StartMessageMoveTaskCommand,
  type Message,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { parseDeliveryMessage } from '../../../lambda/webhook/message';
import type { CliIo } from '../../cli/run';

/** The header row of the listing. */
export const DEAD_LETTERS_HEADER = ['webhookId', 'subscriberId', 'plantId', 'deadSince'].join('\t');

/** Where the dead letters are and what to do with them. */
export interface DeadLettersOptions {
  readonly client: SQSClient;
  readonly queueUrl: string;
  /** How the queue is named in messages. */
  readonly where: string;
  /** Nothing: list only; `all`: redrive every one; a webhook-id: redrive that one. */
  readonly redrive?: 'all' | { readonly webhookId: string };
  /** The queue a redrive sends to (the delivery queue). */
  readonly deliveryQueueUrl?: () => Promise<string>;
  readonly io: Pick<CliIo, 'out' | 'err'>;
}

/**
 * A header row and one line per dead letter on stdout (webhookId, subscriberId, plant id, when it
 * was dead-lettered); then the redrive asked for.
 */
export async function listDeadLetters(options: DeadLettersOptions): Promise<void> {
  const { client, queueUrl, io, redrive } = options;
  try {
    const seen = new Map<string, Message>();
    for (;;) {
      const { Messages = [] } = await client.send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MaxNumberOfMessages: 10,
          VisibilityTimeout: 30,
          // Long polling asks every SQS server, so an empty answer means the queue is empty.
          WaitTimeSeconds: 1,
          MessageSystemAttributeNames: ['SentTimestamp'],
          MessageAttributeNames: ['All'],
        }),
      );
      const fresh = Messages.filter((m) => !seen.has(m.MessageId!));
      for (const m of fresh) {
        if (seen.size === 0) io.out(DEAD_LETTERS_HEADER);
        seen.set(m.MessageId!, m);
        const delivery = parseDeliveryMessage(m.Body ?? '');
        const sent = new Date(Number(m.Attributes?.SentTimestamp ?? 0)).toISOString();
        io.out(
          delivery
            ? [delivery.webhookId, delivery.subscriberId, delivery.plantId, sent].join('\t')
            : [m.MessageId, '(not a delivery)', '', sent].join('\t'),
        );
      }
      for (const m of Messages.filter((m) => !fresh.includes(m))) seen.set(m.MessageId!, m);
      if (fresh.length === 0) break;
    }
    const one =
      typeof redrive === 'object'
        ? [...seen.values()].find(
            (m) => parseDeliveryMessage(m.Body ?? '')?.webhookId === redrive.webhookId,
          )
        : undefined;
    for (const m of seen.values()) {
      if (m === one) continue;
      await client.send(
        new ChangeMessageVisibilityCommand({
          QueueUrl: queueUrl,
          ReceiptHandle: m.ReceiptHandle!,
          VisibilityTimeout: 0,
        }),
      );
    }
    if (redrive === undefined) {
      io.err(`${seen.size} dead letter(s) in ${options.where}`);
      return;
    }
    if (redrive === 'all') {
      // The deliverer dead-letters a delivery itself (SendMessage after the last attempt), so a
      // letter has no source queue SQS knows of: the move names the delivery queue.
      const arnOf = async (url: string) =>
        (
          await client.send(
            new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }),
          )
        ).Attributes!.QueueArn!;
      await client.send(
        new StartMessageMoveTaskCommand({
          SourceArn: await arnOf(queueUrl),
          DestinationArn: await arnOf(await options.deliveryQueueUrl!()),
        }),
      );
      io.err(
        `redriving ${seen.size} dead letter(s) to the delivery queue; each gets the whole schedule again`,
      );
      return;
    }
    if (!one)
      throw new Error(`no dead letter with webhook-id ${redrive.webhookId} in ${options.where}`);
    // Sent again before it is deleted: a failure in between leaves a duplicate, never a loss.
    await client.send(
      new SendMessageCommand({
        QueueUrl: await options.deliveryQueueUrl!(),
        MessageBody: one.Body!,
        ...(one.MessageAttributes ? { MessageAttributes: one.MessageAttributes } : {}),
      }),
    );
    await client.send(
      new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: one.ReceiptHandle! }),
    );
    io.err(
      `redriving ${redrive.webhookId} to the delivery queue; it gets the whole schedule again (${seen.size - 1} other dead letter(s) stay)`,
    );
  } finally {
    client.destroy();
  }
}
