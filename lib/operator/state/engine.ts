/**
 * How the state commands reach a running `npm start`: its engine as the operator (found as the
 * token and webhook CLIs find it), every item of a table, batched writes, a queue drained.
 */
import {
  BatchWriteItemCommand,
  DynamoDBClient,
  ScanCommand,
  type AttributeValue,
  type BatchWriteItemCommandOutput,
  type WriteRequest,
} from '@aws-sdk/client-dynamodb';
import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  ReceiveMessageCommand,
  SQSClient,
  type Message,
} from '@aws-sdk/client-sqs';
import { TABLES } from '../../../lambda/aws/tables';
import { dataDirOf, localCliClientConfig, localEngineTarget } from '../../npm-start/find';

/** Where the state commands act: the running engine, as the operator, and its data directory. */
export interface StateTarget {
  readonly dataDir: string;
  readonly endpoint: string;
  readonly config: ReturnType<typeof localCliClientConfig>;
  readonly where: string;
  readonly unreachable: string;
}

/** The target in `env`: found as the token and webhook CLIs find `npm start`. */
export function stateTarget(env: NodeJS.ProcessEnv): StateTarget {
  const engine = localEngineTarget(env);
  return {
    dataDir: dataDirOf(env),
    endpoint: engine.endpoint,
    config: localCliClientConfig(engine.endpoint, engine.credentials),
    where: engine.where,
    unreachable: engine.unreachable,
  };
}

/** Every item of a table. */
export async function scanAll(
  client: DynamoDBClient,
  table: string,
): Promise<Record<string, AttributeValue>[]> {
  const items: Record<string, AttributeValue>[] = [];
  let start: Record<string, AttributeValue> | undefined;
  do {
    const page = await client.send(
      new ScanCommand({ TableName: table, ExclusiveStartKey: start, ConsistentRead: true }),
    );
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
}

/** Writes (puts or deletes) in batches of 25, retrying what the engine leaves unprocessed. */
export async function writeAll(client: DynamoDBClient, table: string, requests: WriteRequest[]) {
  for (let i = 0; i < requests.length; i += 25) {
    let pending: Record<string, WriteRequest[]> | undefined = {
      [table]: requests.slice(i, i + 25),
    };
    while (pending && Object.keys(pending).length > 0) {
      const answer: BatchWriteItemCommandOutput = await client.send(
        new BatchWriteItemCommand({ RequestItems: pending }),
      );
      pending = answer.UnprocessedItems;
    }
  }
}

/** Removes every item of `table`; answers how many there were. */
export async function emptyTable(client: DynamoDBClient, table: string): Promise<number> {
  const key = TABLES.find((t) => t.localName === table)!.partitionKey.name;
  const items = await scanAll(client, table);
  await writeAll(
    client,
    table,
    items.map((item) => ({ DeleteRequest: { Key: { [key]: item[key]! } } })),
  );
  return items.length;
}

/**
 * Every message of a queue, received and (`keep`) made visible again, or deleted. Long polling
 * asks every server, so an empty answer means the queue is empty.
 */
export async function drain(sqs: SQSClient, url: string, keep: boolean): Promise<Message[]> {
  const seen = new Map<string, Message>();
  for (;;) {
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: url,
        MaxNumberOfMessages: 10,
        VisibilityTimeout: 30,
        WaitTimeSeconds: 0,
      }),
    );
    const fresh = Messages.filter((m) => !seen.has(m.MessageId!));
    for (const m of fresh) seen.set(m.MessageId!, m);
    if (fresh.length === 0) break;
  }
  for (const m of seen.values()) {
    if (keep) {
      await sqs.send(
        new ChangeMessageVisibilityCommand({
          QueueUrl: url,
          ReceiptHandle: m.ReceiptHandle!,
          VisibilityTimeout: 0,
        }),
      );
    } else {
      await sqs.send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: m.ReceiptHandle! }));
    }
  }
  return [...seen.values()];
}

/** Runs `work` with the operator's DynamoDB and SQS clients. */
export async function withClients<T>(
  target: StateTarget,
  work: (db: DynamoDBClient, sqs: SQSClient) => Promise<T>,
): Promise<T> {
  const db = new DynamoDBClient(target.config);
  const sqs = new SQSClient(target.config);
  try {
    return await work(db, sqs);
  } finally {
    db.destroy();
    sqs.destroy();
  }
}
