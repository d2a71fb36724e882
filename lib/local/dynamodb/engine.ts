/**
 * The embedded DynamoDB-compatible engine (dynalite) on loopback, with the project's tables,
 * closed to web pages (see `refusal`). Tests, `npm run db` and `npm start` all start it here.
 */
import {
  CreateTableCommand,
  DynamoDBClient,
  ListTablesCommand,
  type DynamoDBClientConfig,
} from '@aws-sdk/client-dynamodb';
import { mkdir } from 'node:fs/promises';
import type {
  IncomingHttpHeaders,
  IncomingMessage,
  RequestListener,
  Server,
  ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { TABLES, type TableDefinition } from '../../../lambda/aws/tables';
import { IndexBuilds } from './index-build';
import { openLocalAccount, type LocalAccount } from '../iam/account';
import type { Credentials } from '../iam/identities';
import { LOCAL_REGION } from '../iam/identities';
import { LOOPBACK_HOST_NAMES } from '../process/settings';
import { dynaliteWithChanges, type ItemChange } from './item-changes';

/** Where and how to run the engine. */
export interface EngineOptions {
  /** TCP port on 127.0.0.1. @default 0 - a free port */
  readonly port?: number;
  /** Directory for the data. @default - in memory, lost on close */
  readonly dataDir?: string;
  /** Tables to create when missing. @default - every table in `lambda/aws/tables.ts` */
  readonly tables?: readonly TableDefinition[];
  /**
   * The host names a request's `Host` may carry, with the engine's port (see `refusal`); a
   * container reaching the engine as `host.docker.internal` (sam local) needs that name too.
   * @default LOOPBACK_HOST_NAMES
   */
  readonly hostNames?: readonly string[];
  /**
   * Sees each admitted request first; answering it itself, it returns true and the engine does
   * not (the local runtime serves its queues this way).
   * @default - the engine serves every admitted request
   */
  readonly intercept?: (req: IncomingMessage, res: ServerResponse) => boolean;
  /**
   * Told each item write once stored, with the item before and after, in the order the engine
   * made them (the local runtime's plants stream reads them).
   * @default - nobody is told
   */
  readonly onItemChange?: (change: ItemChange) => void;
  /**
   * The local account whose identities may call the engine (and its queues and key) and whose
   * policies judge each call (lib/local/iam/).
   * @default - an account of its own, in memory: only its operator (`clientConfig`) is let in
   */
  readonly account?: LocalAccount;
  /**
   * Index builds (an index added to a table of an older data directory) start only once this
   * settles: a test's way to see a build in progress.
   * @default - at once
   */
  readonly holdIndexBuilds?: Promise<void>;
}

/** The names of the loopback address the engine listens on (see `settings.ts`). */
export { LOOPBACK_HOST_NAMES };

/** A running engine. */
export interface Engine {
  readonly port: number;
  /** `http://127.0.0.1:<port>`, for `AWS_ENDPOINT_URL_DYNAMODB` or a client's `endpoint`. */
  readonly endpoint: string;
  /** Client settings that reach this engine (as the local account's operator). */
  readonly clientConfig: DynamoDBClientConfig & { readonly credentials: Credentials };
  /** Stops accepting connections and closes the store (flushing it to disk). */
  close(): Promise<void>;
}

/** The embedded engine, which can also play an outage. */
export interface LocalEngine extends Engine {
  /** The account in front of it. */
  readonly account: LocalAccount;
  /**
   * An outage drill: while unavailable, every new connection and every new request is reset
   * (requests being served finish), so callers fail as against a stopped engine after their
   * retries; the data stays, and `setAvailable(true)` serves it again.
   */
  setAvailable(available: boolean): void;
}

/** The region the SDK is told locally (every local ARN names it). */
export { LOCAL_REGION };

/** Starts the engine and creates the missing tables. */
export async function startEngine(options: EngineOptions = {}): Promise<LocalEngine> {
  if (options.dataDir) await mkdir(options.dataDir, { recursive: true });
  const { server, store } = dynaliteWithChanges(
    { path: options.dataDir, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 },
    options.onItemChange,
  );
  const indexes = new IndexBuilds(store);
  const account = options.account ?? (await openLocalAccount({ log: () => undefined }));
  guardFromWebPages(
    server,
    options.hostNames ?? LOOPBACK_HOST_NAMES,
    account,
    options.intercept,
    indexes,
  );
  // The outage drill: a request that reaches the engine while it is unavailable has its connection
  // reset before anything reads it, and so does a new connection; requests already being served
  // finish (cutting one mid-body would make dynalite throw, and the process with it).
  let available = true;
  const serve = server.listeners('request') as RequestListener[];
  server.removeAllListeners('request');
  server.on('request', (req, res) => {
    if (!available) return void req.socket.destroy();
    for (const listener of serve) listener.call(server, req, res);
  });
  server.on('connection', (socket) => {
    if (!available) socket.destroy();
  });
  const setAvailable = (value: boolean) => {
    available = value;
    if (!available) server.closeIdleConnections();
  };
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const endpoint = `http://127.0.0.1:${port}`;
  const clientConfig = {
    endpoint,
    region: LOCAL_REGION,
    credentials: account.identities.operator.credentials,
  };
  const close = async () => {
    await indexes.close();
    await new Promise<void>((resolve, reject) => {
      server.closeAllConnections();
      server.close((error) => (error ? reject(error) : resolve()));
    });
  };
  try {
    const tables = options.tables ?? TABLES;
    await createTables(clientConfig, tables);
    // A table an older version created lacks the indexes added since: added here, built meanwhile.
    for (const table of tables.filter((t) => t.indexes?.length)) {
      await indexes.ensure(table, options.holdIndexBuilds);
    }
  } catch (error) {
    await close();
    throw error;
  }
  return { port, endpoint, clientConfig, account, setAvailable, close };
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
          AttributeDefinitions: attributeDefinitions(table),
          KeySchema: [{ AttributeName: table.partitionKey.name, KeyType: 'HASH' }],
          ...(table.indexes?.length
            ? {
                GlobalSecondaryIndexes: table.indexes.map((index) => ({
                  IndexName: index.name,
                  KeySchema: [
                    { AttributeName: index.partitionKey.name, KeyType: 'HASH' as const },
                    { AttributeName: index.sortKey.name, KeyType: 'RANGE' as const },
                  ],
                  Projection: { ProjectionType: 'ALL' as const },
                })),
              }
            : {}),
        }),
      );
    }
  } finally {
    client.destroy();
  }
}

/** Each key attribute of a table and its indexes, once. */
function attributeDefinitions(table: TableDefinition) {
  const keys = [
    table.partitionKey,
    ...(table.indexes ?? []).flatMap((i) => [i.partitionKey, i.sortKey]),
  ];
  return [...new Map(keys.map((key) => [key.name, key.type])).entries()].map(
    ([AttributeName, AttributeType]) => ({ AttributeName, AttributeType }),
  );
}

/**
 * Why the engine refuses a request, or `undefined` to serve it. The engine checks no signature,
 * so any web page open in the developer's browser could otherwise read and write its tables
 * (dynalite even answers CORS preflights with `*`). A browser marks what it sends: CORS
 * preflights are OPTIONS, fetches carry `Origin` and `Sec-Fetch-*`; and a page that rebinds its
 * own DNS name to 127.0.0.1 still sends its own name as `Host`. SDK clients send none of these
 * headers and `Host: 127.0.0.1:<port>` (or `localhost:<port>`).
 */
export function refusal(
  method: string | undefined,
  headers: IncomingHttpHeaders,
  port: number,
  hostNames: readonly string[] = LOOPBACK_HOST_NAMES,
): string | undefined {
  if (method === 'OPTIONS') return 'the local engine answers no CORS preflight';
  if (headers.origin !== undefined || headers['sec-fetch-mode'] !== undefined) {
    return 'the local engine refuses requests from web pages (Origin or Sec-Fetch-Mode present)';
  }
  const host = headers.host?.toLowerCase();
  if (!hostNames.some((name) => host === `${name}:${port}`)) {
    return `the local engine answers only to Host ${hostNames.map((name) => `${name}:${port}`).join(' or ')}`;
  }
  return undefined;
}

/**
 * Puts `refusal` and then the account's gate in front of dynalite's own request listener: a
 * refused request gets a 403 DynamoDB error (which the SDK raises as `AccessDeniedException`)
 * without CORS headers, a request the gate refuses its service's error; neither reaches the
 * engine, the queues or the key.
 */
function guardFromWebPages(
  server: Server,
  hostNames: readonly string[],
  account: LocalAccount,
  intercept: EngineOptions['intercept'],
  indexes: IndexBuilds,
): void {
  const listeners = server.listeners('request') as RequestListener[];
  server.removeAllListeners('request');
  // The port the engine listens on, read once: a request only comes once it listens.
  let port: number | undefined;
  server.on('request', (req, res) => {
    // The answer's Date is the clock the gate checks signatures by (the SDK corrects its own by
    // it, as against AWS): one clock, also when a test fakes it in this process.
    res.setHeader('date', new Date().toUTCString());
    port ??= (server.address() as AddressInfo).port;
    const reason = refusal(req.method, req.headers, port, hostNames);
    if (reason === undefined) {
      account.gate.handle(req, res, (allowed) =>
        indexes.admit(allowed, res, (checked) => {
          try {
            if (account.kms.intercept(checked, res) || intercept?.(checked, res)) return;
            for (const listener of listeners) listener.call(server, checked, res);
          } catch {
            // Whatever a request holds, it fails alone: the engine (and npm start) keeps serving.
            if (!res.headersSent) res.writeHead(500, { connection: 'close' });
            res.end();
          }
        }),
      );
      return;
    }
    const body = JSON.stringify({
      __type: 'com.amazonaws.dynamodb.v20120810#AccessDeniedException',
      message: reason,
    });
    res.writeHead(403, {
      'content-type': 'application/x-amz-json-1.0',
      'content-length': Buffer.byteLength(body),
      connection: 'close',
    });
    res.end(body);
  });
}
