/**
 * The tokens table, and the only module that talks to it: its definition and key name, the item
 * that stores a token, and the four calls made on it — a read by the authorizer, writes by the
 * token CLI, the dev token and the bench, deletions and a scan by the CLI and the dev token.
 */
import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  paginateScan,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { tableDepsFromEnvironment, type TableDeps } from '../aws/dynamodb';
import type { MethodActions, TableDefinition } from '../aws/table-definition';

/** Bearer tokens, keyed by the hex SHA-256 of the token; `expiresAt` (epoch seconds) is the TTL. */
export const TOKENS_TABLE = {
  localName: 'tokens',
  environmentVariable: 'TOKENS_TABLE_NAME',
  partitionKey: { name: 'tokenHash', type: 'S' },
  timeToLiveAttribute: 'expiresAt',
} as const satisfies TableDefinition;

const KEY = TOKENS_TABLE.partitionKey.name;

/** A token as stored: never the token itself, only its SHA-256. */
export interface TokenItem {
  /** Hex SHA-256 of the token: the table's key. */
  readonly hash: string;
  /** Public identifier, safe to log and to show. */
  readonly tokenId: string;
  readonly name: string;
  readonly scopes: readonly string[];
  /** What the scopes mean (`SCOPES_REVISION`): the revision current when it was made. */
  readonly scopesRevision: number;
  /** ISO-8601. */
  readonly createdAt: string;
  /** Epoch seconds; absent for a token that never expires. Also the table's TTL attribute. */
  readonly expiresAt?: number;
}

/**
 * An item as read, unvalidated: the key as `hash`, every other attribute as stored (numbers as
 * `NumberValue`, never a float64). Whoever can write the table can store anything here, so the
 * reader validates what it relies on.
 */
export type StoredTokenItem = { readonly hash: string } & Readonly<Record<string, unknown>>;

/** What reaches the table: a document client and the table's name. */
export type TokensTableDeps = TableDeps<'tokens'>;

/** The authorizer's configuration, read once at cold start. */
export function tokensTableFromEnvironment(env: NodeJS.ProcessEnv = process.env): TokensTableDeps {
  return tableDepsFromEnvironment('tokens', TOKENS_TABLE, env);
}

/** The tokens table through one document client; store errors are thrown as the SDK throws them. */
export class TokensTable {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** The item stored under `hash`, read strongly consistent (one GetItem), or `undefined`. */
  async get(hash: string): Promise<StoredTokenItem | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: { [KEY]: hash }, ConsistentRead: true }),
    );
    return Item && decodeItem(Item);
  }

  /**
   * Stores `item` (one PutItem), replacing any item under its hash; with `onlyIfNew`, a taken
   * hash fails the put (`ConditionalCheckFailedException`) instead.
   */
  async put(item: TokenItem, options: { readonly onlyIfNew?: boolean } = {}): Promise<void> {
    const { hash, ...attributes } = item;
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { [KEY]: hash, ...attributes },
        ...(options.onlyIfNew
          ? {
              ConditionExpression: 'attribute_not_exists(#key)',
              ExpressionAttributeNames: { '#key': KEY },
            }
          : {}),
      }),
    );
  }

  /** Deletes the item under `hash` (one DeleteItem); deleting a missing item is no error. */
  async delete(hash: string): Promise<void> {
    await this.client.send(new DeleteCommand({ TableName: this.tableName, Key: { [KEY]: hash } }));
  }

  /** Every item, page by page, strongly consistent (tokens are few; the table has no index). */
  async scan(): Promise<StoredTokenItem[]> {
    const items: StoredTokenItem[] = [];
    const pages = paginateScan(
      { client: this.client },
      { TableName: this.tableName, ConsistentRead: true },
    );
    for await (const page of pages) items.push(...(page.Items ?? []).map(decodeItem));
    return items;
  }
}

/** The DynamoDB actions of each method (a function given a method is granted them). */
export const TOKENS_TABLE_ACTIONS = {
  get: ['dynamodb:GetItem'],
  put: ['dynamodb:PutItem'],
  delete: ['dynamodb:DeleteItem'],
  scan: ['dynamodb:Scan'],
} as const satisfies MethodActions<TokensTable>;

/** A stored item with its key renamed `hash`. */
function decodeItem(item: Record<string, unknown>): StoredTokenItem {
  const { [KEY]: hash, ...attributes } = item;
  return { ...attributes, hash: String(hash) };
}
