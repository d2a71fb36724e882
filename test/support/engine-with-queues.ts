/**
 * A real engine with the webhook's local queues on its port (as `npm run db` serves them),
 * nothing polling them, and the clients a test of the deliverer or the webhook CLI needs. Call
 * at a suite's top level: started before its tests, closed after.
 */
import { SQSClient } from '@aws-sdk/client-sqs';
import { LOCAL_QUEUE_NAMES, localCliClientConfig, localQueueUrl } from '../../lib/local/names';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { makeDocumentClient } from '../../lambda/aws/dynamodb';
import { SUBSCRIPTIONS_TABLE } from '../../lambda/aws/tables';
import { ReceiverStates } from '../../lambda/webhook/receiver-state';
import { SubscriptionsTable } from '../../lambda/webhook/subscriptions-table';
import type { Engine } from '../../lib/local/dynamodb/engine';
import { startEngineWithQueues } from '../../lib/local/webhooks';

/** What the suite reads once its `beforeAll` has run. */
export interface EngineWithQueues {
  readonly engine: Engine;
  readonly sqs: SQSClient;
  /** The URL of each local queue. */
  readonly urls: Record<keyof typeof LOCAL_QUEUE_NAMES, string>;
  readonly client: DynamoDBDocumentClient;
  readonly states: ReceiverStates;
  readonly subscriptions: SubscriptionsTable;
}

/** Starts the engine and its queues for the suite; the answer is filled in before its tests. */
export function useEngineWithQueues(): EngineWithQueues {
  const ready = {} as { -readonly [K in keyof EngineWithQueues]: EngineWithQueues[K] };
  beforeAll(async () => {
    ready.engine = await startEngineWithQueues();
    ready.sqs = new SQSClient(
      localCliClientConfig(ready.engine.endpoint, ready.engine.clientConfig.credentials),
    );
    const url = (name: string) => localQueueUrl(ready.engine.endpoint, name);
    ready.urls = {
      deliveries: url(LOCAL_QUEUE_NAMES.deliveries),
      deadLetters: url(LOCAL_QUEUE_NAMES.deadLetters),
      streamFailures: url(LOCAL_QUEUE_NAMES.streamFailures),
    };
    ready.client = makeDocumentClient(ready.engine.clientConfig);
    ready.states = new ReceiverStates(ready.client, SUBSCRIPTIONS_TABLE.localName);
    ready.subscriptions = new SubscriptionsTable(ready.client, SUBSCRIPTIONS_TABLE.localName);
  });
  afterAll(async () => {
    ready.sqs?.destroy();
    await ready.engine?.close();
  });
  return ready;
}
