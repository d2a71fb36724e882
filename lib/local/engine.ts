/**
 * The embedded DynamoDB-compatible engine (dynalite) on loopback, with the project's tables.
 * Tests, `npm run db` and `npm start` all start it through here.
 */
import {
  CreateTableCommand,
  DynamoDBClient,
  ListTablesCommand,
  type DynamoDBClientConfig,
} from '@aws-sdk/client-dynamodb';
import { mkdir } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import dynalite from 'dynalite';
import { TABLES, type TableDefinition } from '../../lambda/shared/tables';

/** Where and how to run the engine. */
export interface EngineOptions {
  /** TCP port on 127.0.0.1. @default 0 - a free port */
  readonly port?: number;
  /** Directory for the data. @default - in memory, lost on close */
  readonly dataDir?: string;
  /** Tables to create when missing. @default - every table in `lambda/shared/tables.ts` */
  readonly tables?: readonly TableDefinition[];
}

/** A running engine. */
export interface Engine {
  readonly port: number;
  /** `http://127.0.0.1:<port>`, for `AWS_ENDPOINT_URL_DYNAMODB` or a client's `endpoint`. */
  readonly endpoint: string;
  /** Client settings that reach this engine with dummy credentials. */
  readonly clientConfig: DynamoDBClientConfig;
  /** Stops accepting connections and closes the store (flushing it to disk). */
  close(): Promise<void>;
}

/** Credentials the engine accepts (it checks none); the SDK insists on some. */
export const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' } as const;
/** The region the SDK is told locally; the engine ignores it. */
export const LOCAL_REGION = 'local';

/** Starts the engine and creates the missing tables. */
export async function startEngine(options: EngineOptions = {}): Promise<Engine> {
  if (options.dataDir) await mkdir(options.dataDir, { recursive: true });
  const server = dynalite({
    path: options.dataDir,
    createTableMs: 0,
    deleteTableMs: 0,
    updateTableMs: 0,
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const endpoint = `http://127.0.0.1:${port}`;
  const clientConfig: DynamoDBClientConfig = {
    endpoint,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
  };
  const close = () =>
    new Promise<void>((resolve, reject) => {
      server.closeAllConnections();
      server.close((error) => (error ? reject(error) : resolve()));
    });
  try {
    await createTables(clientConfig, options.tables ?? TABLES);
  } catch (error) {
    await close();
    throw error;
  }
  return { port, endpoint, clientConfig, close };
}

/** Creates each table that does not exist yet, on-demand, from its definition. */
export async function createTables(
  clientConfig: DynamoDBClientConfig,
  tables: readonly TableDefinition[],
): Promise<void> {
  const client = new DynamoDBClient(clientConfig);
  try {
    const { TableNames: existing = [] } = await client.send(new ListTablesCommand({}));
    for (const table of tables.filter((t) => !existing.includes(t.localName))) {
      // dynalite has no UpdateTimeToLive; expiry is enforced by the authorizer's own check.
      await client.send(
        new CreateTableCommand({
          TableName: table.localName,
          BillingMode: 'PAY_PER_REQUEST',
          AttributeDefinitions: [
            { AttributeName: table.partitionKey.name, AttributeType: table.partitionKey.type },
          ],
          KeySchema: [{ AttributeName: table.partitionKey.name, KeyType: 'HASH' }],
        }),
      );
    }
  } finally {
    client.destroy();
  }
}
