/**
 * What the console reads and does besides its invocations: the plants (by id, by tag, paged,
 * numbers as the exact decimal text the engine keeps), and the CLIs' own commands — `token list`
 * and `revoke`, `webhook list`, `attempts`, `dead-letters`, `replay`, `enable` and the redrives —
 * run in-process against this `npm start`, exactly as a terminal would run them.
 */
import {
  DynamoDBClient,
  GetItemCommand,
  QueryCommand,
  ScanCommand,
  type AttributeValue,
} from '@aws-sdk/client-dynamodb';
import { PLANTS_BY_TAG_INDEX, PLANTS_TABLE } from '../../lambda/aws/tables';
import { BadRequest } from '../../lambda/http/answers';
import { PLANT_ATTRIBUTES } from '../../lambda/plants/item';
import { readInput } from '../../lambda/plants/request';
import { PageQuery, PlantPath } from '../../lambda/plants/schemas';
import type { CliIo } from '../cli/run';
import { localCliClientConfig, localEngineTarget } from '../npm-start/find';
import { runTokenCli } from '../operator/token-cli';
import { runWebhookCli } from '../operator/webhook/cli';

/** Where this `npm start` keeps its data and serves its engine. */
export interface Where {
  readonly dataDir: string;
  readonly dbPort: number;
}

/** The environment in which a CLI command finds this `npm start`. */
export function cliEnv(where: Where): NodeJS.ProcessEnv {
  return {
    ...process.env,
    PLANT_STORE_DATA_DIR: where.dataDir,
    PLANT_STORE_DB_PORT: String(where.dbPort),
  };
}

/** What a command printed, and its exit code. */
export interface Ran {
  readonly code: number;
  readonly out: string[];
  readonly err: string[];
}

/** Runs one command of a CLI (`token` or `webhook`) as its terminal would, capturing its lines. */
export async function runCommand(
  cli: 'token' | 'webhook',
  argv: readonly string[],
  where: Where,
): Promise<Ran> {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    out: (line) => void out.push(line),
    err: (line) => void err.push(line),
    env: cliEnv(where),
  };
  const code = await (cli === 'token' ? runTokenCli : runWebhookCli)(argv, io);
  return { code, out, err };
}

/**
 * A value from the page, checked to be passed to a CLI after `--`: a non-empty string that does
 * not start with `-`, so that it is never read as an option (`--aws` would reach AWS).
 */
export function argument(name: string, value: unknown): string {
  if (typeof value !== 'string' || value === '') throw new BadRequest(`${name} is required`);
  if (value.startsWith('-')) throw new BadRequest(`${name} must not start with -, not ${value}`);
  return value;
}

/** A tab-separated listing (a header row, then rows) as objects. */
export function rowsOf(lines: readonly string[]): Record<string, string>[] {
  const [header, ...rows] = lines;
  if (!header) return [];
  const names = header.split('\t');
  return rows.map((row) => {
    const fields = row.split('\t');
    return Object.fromEntries(names.map((name, i) => [name, fields[i] ?? '']));
  });
}

/** An item with each number as its exact decimal text (never a float64). */
export function plainItem(item: Record<string, AttributeValue>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(item).map(([key, value]) => [key, plain(value)]));
}

function plain(value: AttributeValue): unknown {
  if (value.S !== undefined) return value.S;
  if (value.N !== undefined) return value.N;
  if (value.BOOL !== undefined) return value.BOOL;
  if (value.NULL !== undefined) return null;
  if (value.L !== undefined) return value.L.map(plain);
  if (value.M !== undefined) return plainItem(value.M);
  if (value.SS !== undefined) return value.SS;
  if (value.NS !== undefined) return value.NS;
  if (value.B !== undefined) return `(${value.B.length} bytes)`;
  return null;
}

/** A page of plants. */
export interface PlantsPage {
  /** The items as kept: a deleted plant's tombstone among them, with its `deletedAt`. */
  readonly items: Record<string, unknown>[];
  /** The next page's cursor, when there is one. */
  readonly next?: string;
  /** What the API would say of the id looked up, when it is not a plant: deleted, or none. */
  readonly notice?: string;
}

/** The console's own cursor (the page's last evaluated key), or a 400. */
function startKey(cursor: string): Record<string, AttributeValue> {
  try {
    const key: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (key && typeof key === 'object' && !Array.isArray(key)) {
      return key as Record<string, AttributeValue>;
    }
  } catch {
    // Refused below.
  }
  throw cursorRefused();
}

/** The answer to a cursor no page gave. */
const cursorRefused = () => new BadRequest('cursor: must be the next value of a previous page');

/**
 * One plant by id, the plants of a tag, or all of them; `limit` a page, from `cursor`. The id,
 * the limit and the tag follow GET /plants/{id}'s and GET /plants' rules, with their messages.
 */
export async function readPlants(
  where: Where,
  query: { id?: string; tag?: string; cursor?: string; limit?: string },
): Promise<PlantsPage> {
  const byId = query.id === undefined ? undefined : readInput(PlantPath, { id: query.id }).id;
  const { limit, tag } = readInput(PageQuery, { limit: query.limit, tag: query.tag });
  const start = query.cursor ? startKey(query.cursor) : undefined;
  const engine = localEngineTarget(cliEnv(where));
  const client = new DynamoDBClient(localCliClientConfig(engine.endpoint, engine.credentials));
  try {
    if (byId !== undefined) {
      const { Item } = await client.send(
        new GetItemCommand({
          TableName: PLANTS_TABLE.localName,
          Key: { id: { N: byId.toString() } },
          ConsistentRead: true,
        }),
      );
      if (!Item) return { items: [], notice: `no plant with id ${query.id}` };
      const item = plainItem(Item);
      if (item[PLANT_ATTRIBUTES.deletedAt] === undefined) return { items: [item] };
      return {
        items: [item],
        notice: `plant ${query.id} was deleted at ${String(item[PLANT_ATTRIBUTES.deletedAt])}: the API answers 404 for it`,
      };
    }
    const page =
      tag !== undefined
        ? await client.send(
            new QueryCommand({
              TableName: PLANTS_TABLE.localName,
              IndexName: PLANTS_BY_TAG_INDEX.name,
              KeyConditionExpression: '#tag = :tag',
              ExpressionAttributeNames: { '#tag': PLANTS_BY_TAG_INDEX.partitionKey.name },
              ExpressionAttributeValues: { ':tag': { S: tag } },
              Limit: limit,
              ExclusiveStartKey: start,
            }),
          )
        : await client.send(
            new ScanCommand({
              TableName: PLANTS_TABLE.localName,
              Limit: limit,
              ExclusiveStartKey: start,
            }),
          );
    return {
      items: (page.Items ?? []).map(plainItem),
      ...(page.LastEvaluatedKey
        ? {
            next: Buffer.from(JSON.stringify(page.LastEvaluatedKey)).toString('base64url'),
          }
        : {}),
    };
  } catch (error) {
    // A cursor of the right shape that names no key of this table or index: the engine says so.
    if (start && (error as Error).name === 'ValidationException') throw cursorRefused();
    throw error;
  } finally {
    client.destroy();
  }
}
