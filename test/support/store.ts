/** A real engine with the project's tables, and a client that counts what it sends. */
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { startEngine, type Engine } from '../../lib/local/dynamodb/engine';
import { makeDocumentClient } from '../../lambda/aws/dynamodb';
import { PLANTS_TABLE } from '../../lambda/aws/tables';

/** Records every HTTP request a client sends (retries included), by command name. */
export function countRequests(client: DynamoDBDocumentClient): string[] {
  const requests: string[] = [];
  client.middlewareStack.add(
    (next, context) => async (args) => {
      requests.push(context.commandName ?? 'unknown');
      return next(args);
    },
    { step: 'deserialize', name: 'countRequests' },
  );
  return requests;
}

/** An in-memory engine, a counting document client and a raw client for reading back. */
export interface TestStore {
  readonly engine: Engine;
  readonly plants: DynamoDBDocumentClient;
  readonly requests: string[];
  /** The stored plant item exactly as DynamoDB holds it (numbers as strings). */
  readStored(id: string): Promise<Record<string, unknown> | undefined>;
  close(): Promise<void>;
}

/**
 * The functions' timeouts (1 s to connect, 2 s an attempt) fit a Lambda's time against DynamoDB;
 * against an engine in the test's own process on a busy machine, 40 racers' requests wait longer
 * than that in its queue, and a timeout would answer 503 (or retry a write) where the test
 * asserts what the engine decided. The suites that test the timeouts make their own clients.
 */
const PATIENT = {
  requestHandler: {
    connectionTimeout: 60_000,
    requestTimeout: 60_000,
    throwOnRequestTimeout: true,
  },
};

/** Starts a fresh engine for one test file (dynalite unless told otherwise). */
export async function startTestStore(
  start: () => Promise<Engine> = () => startEngine(),
): Promise<TestStore> {
  const engine = await start();
  const plants = makeDocumentClient({ ...engine.clientConfig, ...PATIENT });
  const raw = new DynamoDBClient({ ...engine.clientConfig, ...PATIENT });
  const requests = countRequests(plants);
  return {
    engine,
    plants,
    requests,
    async readStored(id) {
      const { Item } = await raw.send(
        new GetItemCommand({
          TableName: PLANTS_TABLE.localName,
          Key: { [PLANTS_TABLE.partitionKey.name]: { N: id } },
          ConsistentRead: true,
        }),
      );
      return Item && Object.fromEntries(Object.entries(Item).map(([k, v]) => [k, v.N ?? v.S]));
    },
    async close() {
      plants.destroy();
      raw.destroy();
      await engine.close();
    },
  };
}
