/**
 * The webhook's queues as the CLI reaches them: npm start's (named in `lib/local/webhooks.ts`)
 * or a deployed dead-letter queue (`--aws --queue <DeadLetterQueueUrl>`, a stack output), whose
 * delivery queue SQS names with ListDeadLetterSourceQueues. Also `webhook test`: one example
 * delivery queued for one subscriber.
 */
import { randomBytes } from 'node:crypto';
import {
  ListDeadLetterSourceQueuesCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { stringifyJson } from '../../../lambda/http/json-answer';
import type { DeliveryMessage } from '../../../lambda/webhook/message';
import { typedMembers } from '../../../lambda/webhook/event-bodies';
import { eventsOfItem, receivesTypedBodies } from '../../../lambda/webhook/events';
import type { Subscriber } from '../../../lambda/webhook/subscriptions-table';
import { FIRST_VERSION } from '../../../lambda/plants/versions';
import {
  LOCAL_QUEUE_NAMES,
  localCliClientConfig,
  localQueueUrl,
  type Credentials,
} from '../../npm-start/find';
import { EXAMPLE_PLANT } from '../../../lambda/plants/example-plant';
import { queueBody } from '../../../lambda/webhook/queue-body';

/** Where the CLI's queue commands go. */
export interface QueueTarget {
  readonly local: boolean;
  /** Locally: the operator's keys. */
  readonly credentials?: Credentials;
  /** npm start's engine endpoint, when local. */
  readonly endpoint?: string;
  readonly region?: string;
  /** The deployed dead-letter queue's URL. */
  readonly queue?: string;
}

/** The webhook-id prefix of a test delivery: signed like any webhook-id, so a receiver can trust it. */
export const TEST_WEBHOOK_ID_PREFIX = 'msg_test_';

/** The queues of `target`: the dead letters, and the delivery queue they came from. */
export function webhookQueues(target: QueueTarget): {
  readonly client: SQSClient;
  readonly deadLetters: string;
  readonly deliveries: () => Promise<string>;
} {
  if (target.local) {
    const client = new SQSClient(localCliClientConfig(target.endpoint!, target.credentials!));
    return {
      client,
      deadLetters: localQueueUrl(target.endpoint!, LOCAL_QUEUE_NAMES.deadLetters),
      deliveries: () =>
        Promise.resolve(localQueueUrl(target.endpoint!, LOCAL_QUEUE_NAMES.deliveries)),
    };
  }
  const client = new SQSClient(target.region ? { region: target.region } : {});
  const deadLetters = target.queue!;
  return {
    client,
    deadLetters,
    deliveries: async () => {
      const { queueUrls = [] } = await client.send(
        new ListDeadLetterSourceQueuesCommand({ QueueUrl: deadLetters }),
      );
      if (queueUrls.length !== 1) {
        throw new Error(
          `${deadLetters} is the dead-letter queue of ${queueUrls.length} queues, not 1`,
        );
      }
      return queueUrls[0]!;
    },
  };
}

/**
 * Queues one example delivery for `subscriberId`: the example NewPlant (a plant that was not
 * stored) under a fresh webhook-id starting `msg_test_`, as the subscriber's newPlant body would
 * be (typed, created now at version 1, when it chose more than newPlant). The deliverer signs
 * and sends it like any other, with the same schedule, dead letters and address policy.
 */
export async function queueTestDelivery(
  target: QueueTarget,
  subscriber: Pick<Subscriber, 'subscriberId' | 'events'>,
): Promise<DeliveryMessage> {
  const { subscriberId } = subscriber;
  const body = receivesTypedBodies(eventsOfItem(subscriber.events))
    ? typedMembers('newPlant', {
        ...EXAMPLE_PLANT,
        type: 'newPlant',
        createdAt: new Date().toISOString(),
        version: FIRST_VERSION,
      })
    : EXAMPLE_PLANT;
  const { client, deliveries } = webhookQueues(target);
  try {
    const message: DeliveryMessage = {
      webhookId: `${TEST_WEBHOOK_ID_PREFIX}${randomBytes(12).toString('base64url')}`,
      subscriberId,
      plantId: String(EXAMPLE_PLANT.id),
      body: stringifyJson(body),
    };
    await client.send(
      new SendMessageCommand({
        QueueUrl: await deliveries(),
        MessageBody: queueBody(message),
      }),
    );
    return message;
  } finally {
    client.destroy();
  }
}
