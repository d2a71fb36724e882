/**
 * `npm run webhook -- dead-letters [--redrive]`: lists the deliveries on a dead-letter queue
 * (each received, then made visible again, so listing changes nothing) and redrives them to the
 * queue they came from with SQS's StartMessageMoveTask.
 */
import {
  ChangeMessageVisibilityCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  StartMessageMoveTaskCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { parseDeliveryMessage } from '../../lambda/shared/webhook/message';
import type { CliIo } from './token-cli';

/** Where the dead letters are and what to do with them. */
export interface DeadLettersOptions {
  readonly client: SQSClient;
  readonly queueUrl: string;
  /** How the queue is named in messages. */
  readonly where: string;
  readonly redrive: boolean;
  readonly io: Pick<CliIo, 'out' | 'err'>;
}

/** One line per dead letter on stdout (webhookId, subscriberId, plant id, first sent); then the redrive. */
export async function listDeadLetters(options: DeadLettersOptions): Promise<void> {
  const { client, queueUrl, io } = options;
  try {
    const seen = new Map<string, string>();
    for (;;) {
      const { Messages = [] } = await client.send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MaxNumberOfMessages: 10,
          VisibilityTimeout: 30,
          // Long polling asks every SQS server, so an empty answer means the queue is empty.
          WaitTimeSeconds: 1,
          MessageSystemAttributeNames: ['SentTimestamp'],
        }),
      );
      const fresh = Messages.filter((m) => !seen.has(m.MessageId!));
      for (const m of Messages) seen.set(m.MessageId!, m.ReceiptHandle!);
      for (const m of fresh) {
        const delivery = parseDeliveryMessage(m.Body ?? '');
        const sent = new Date(Number(m.Attributes?.SentTimestamp ?? 0)).toISOString();
        io.out(
          delivery
            ? [delivery.webhookId, delivery.subscriberId, delivery.plantId, sent].join('\t')
            : [m.MessageId, '(not a delivery)', '', sent].join('\t'),
        );
      }
      if (fresh.length === 0) break;
    }
    for (const handle of seen.values()) {
      await client.send(
        new ChangeMessageVisibilityCommand({
          QueueUrl: queueUrl,
          ReceiptHandle: handle,
          VisibilityTimeout: 0,
        }),
      );
    }
    if (!options.redrive) {
      io.err(`${seen.size} dead letter(s) in ${options.where}`);
      return;
    }
    const { Attributes } = await client.send(
      new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }),
    );
    await client.send(new StartMessageMoveTaskCommand({ SourceArn: Attributes!.QueueArn! }));
    io.err(
      `redriving ${seen.size} dead letter(s) to the delivery queue; each gets the whole schedule again`,
    );
  } finally {
    client.destroy();
  }
}
