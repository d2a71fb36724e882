/** The DynamoDB document client every function uses, and how its failures are told apart. */
import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { requireEnv } from './config';
import { BOUNDED_CALLS, SDK_CLIENT_OPTIONS } from './sdk-client';
import type { TableDefinition } from './table-definition';

/**
 * A document client that never turns a number into a float64 (numbers read back as
 * `NumberValue`), with timeouts short enough that the SDK's retries fit the function's time.
 * The endpoint comes from the SDK's own settings (`AWS_ENDPOINT_URL_DYNAMODB` locally).
 */
export function makeDocumentClient(config: DynamoDBClientConfig = {}): DynamoDBDocumentClient {
  const client = new DynamoDBClient({ ...SDK_CLIENT_OPTIONS, ...BOUNDED_CALLS, ...config });
  return DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true },
    unmarshallOptions: { wrapNumbers: true },
  });
}

/**
 * What a table's module needs to reach it: one document client, under the name the module gives
 * it (`plants`, `tokens`), and the table's name.
 */
export type TableDeps<Client extends string> = {
  readonly [key in Client]: DynamoDBDocumentClient;
} & {
  readonly tableName: string;
};

/**
 * A function's way to its table, read once at cold start: the table's name from its environment
 * variable (a missing one fails the start, by name) and one document client.
 */
export function tableDepsFromEnvironment<Client extends string>(
  client: Client,
  table: TableDefinition,
  env: NodeJS.ProcessEnv = process.env,
): TableDeps<Client> {
  const tableName = requireEnv(table.environmentVariable, env);
  return { [client]: makeDocumentClient(), tableName } as TableDeps<Client>;
}

const UNAVAILABLE_ERRORS = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'InternalServerError',
  'ServiceUnavailable',
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeoutException',
]);
const NETWORK_ERRORS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNABORTED',
]);

/**
 * True when DynamoDB was throttled, failed on its side or could not be reached — after the
 * SDK's retries, so the caller may only retry later. Anything else is a bug or a misconfiguration.
 */
export function isStoreUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const { $fault, code } = error as { $fault?: string; code?: string };
  return (
    UNAVAILABLE_ERRORS.has(error.name) || $fault === 'server' || NETWORK_ERRORS.has(code ?? '')
  );
}
