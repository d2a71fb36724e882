/**
 * The local data as a whole: `save` writes every table's items (in DynamoDB's own JSON: numbers
 * as exact decimal text, sealed secrets as the ciphertext they are) and the messages of the
 * dead-letter and failure queues to `<data dir>/states/<name>.json`; `load` puts them back as
 * they were (what is there now is removed first); `reset` empties the plants and the subscribers
 * (the tokens too when asked); `seed` creates plants from a JSON file, each checked by the rules
 * of POST /plants, the whole file refused when one entry is wrong. Everything goes through the
 * running engine, signed as the operator, as the other CLIs do: it works while `npm start` runs.
 */
import {
  BatchWriteItemCommand,
  type BatchWriteItemCommandOutput,
  DynamoDBClient,
  GetItemCommand,
  ScanCommand,
  type AttributeValue,
  type WriteRequest,
} from '@aws-sdk/client-dynamodb';
import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
  type Message,
} from '@aws-sdk/client-sqs';
import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as v from 'valibot';
import { makeDocumentClient } from '../../../lambda/aws/dynamodb';
import {
  PLANTS_TABLE,
  SUBSCRIPTIONS_TABLE,
  TABLES,
  TOKENS_TABLE,
} from '../../../lambda/aws/tables';
import { createPlant } from '../../../lambda/create-plant/create-plant';
import { parseJson } from '../../../lambda/http/json';
import { describeIssues, NewPlant } from '../../../lambda/plants/schemas';
import { PlantsTable } from '../../../lambda/plants/table';
import {
  LOCAL_QUEUE_NAMES,
  dataDirOf,
  localCliClientConfig,
  localEngineTarget,
  localQueueUrl,
} from '../../npm-start/find';

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

/** The queues whose messages a state keeps (the delivery queue's are being delivered). */
const KEPT_QUEUES = [LOCAL_QUEUE_NAMES.deadLetters, LOCAL_QUEUE_NAMES.streamFailures] as const;

/** A saved state's file. */
interface SavedState {
  readonly format: 1;
  readonly savedAt: string;
  readonly tables: Record<string, Record<string, AttributeValue>[]>;
  readonly queues: Record<string, { body: string }[]>;
}

/** A state's name: letters, digits, `.`, `_`, `-`, not starting with a dot. */
const NAME = /^[\w-][\w.-]{0,63}$/;

/** The file of the state `name`, or an error saying what a name may be. */
export function stateFile(dataDir: string, name: string): string {
  if (!NAME.test(name)) {
    throw new RangeError(
      `a state's name is 1 to 64 letters, digits, ., _ or - (not starting with .), not ${name}`,
    );
  }
  return join(statesDir(dataDir), `${name}.json`);
}

function statesDir(dataDir: string): string {
  return join(dataDir, 'states');
}

/** The saved states' names, sorted. */
export async function savedStates(dataDir: string): Promise<string[]> {
  const files = await readdir(statesDir(dataDir)).catch(() => [] as string[]);
  return files
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.slice(0, -'.json'.length))
    .sort();
}

/** Every item of a table. */
async function scanAll(
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
async function writeAll(client: DynamoDBClient, table: string, requests: WriteRequest[]) {
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
async function emptyTable(client: DynamoDBClient, table: string): Promise<number> {
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
async function drain(sqs: SQSClient, url: string, keep: boolean): Promise<Message[]> {
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
async function withClients<T>(
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

/** `save NAME`: answers the line that says what was kept. */
export async function saveState(target: StateTarget, name: string): Promise<string> {
  const file = stateFile(target.dataDir, name);
  return withClients(target, async (db, sqs) => {
    const tables: SavedState['tables'] = {};
    for (const table of TABLES) tables[table.localName] = await scanAll(db, table.localName);
    const queues: SavedState['queues'] = {};
    for (const queue of KEPT_QUEUES) {
      const messages = await drain(sqs, localQueueUrl(target.endpoint, queue), true);
      queues[queue] = messages.map((m) => ({ body: m.Body ?? '' }));
    }
    const state: SavedState = { format: 1, savedAt: new Date().toISOString(), tables, queues };
    await mkdir(statesDir(target.dataDir), { recursive: true, mode: 0o700 });
    const temporary = `${file}.${process.pid}.tmp`;
    await writeFile(temporary, `${JSON.stringify(state)}\n`, { mode: 0o600 });
    await rename(temporary, file);
    return `saved ${name}: ${counts(tables, queues)} in ${file}`;
  });
}

/** `load NAME`: the tables and queues as saved, what is there now removed first. */
export async function loadState(target: StateTarget, name: string): Promise<string> {
  const file = stateFile(target.dataDir, name);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    const names = await savedStates(target.dataDir);
    throw new Error(
      `no state ${name} in ${statesDir(target.dataDir)} (saved: ${names.join(', ') || 'none'})`,
    );
  }
  // DynamoDB's JSON keeps every number as text: JSON.parse changes none of them.
  const state = JSON.parse(text) as SavedState;
  if (state.format !== 1 || typeof state.tables !== 'object') {
    throw new Error(`${file} is not a saved state`);
  }
  return withClients(target, async (db, sqs) => {
    for (const table of TABLES) {
      await emptyTable(db, table.localName);
      const items = state.tables[table.localName] ?? [];
      await writeAll(
        db,
        table.localName,
        items.map((item) => ({ PutRequest: { Item: item } })),
      );
    }
    for (const queue of KEPT_QUEUES) {
      const url = localQueueUrl(target.endpoint, queue);
      await drain(sqs, url, false);
      for (const { body } of state.queues?.[queue] ?? []) {
        await sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: body }));
      }
    }
    return `loaded ${name}: ${counts(state.tables, state.queues ?? {})} (saved ${state.savedAt})`;
  });
}

/** `reset [--tokens]`: no plants, no subscribers; no tokens either when asked. */
export async function resetState(target: StateTarget, tokens: boolean): Promise<string> {
  return withClients(target, async (db) => {
    const emptied: string[] = [PLANTS_TABLE.localName, SUBSCRIPTIONS_TABLE.localName];
    if (tokens) emptied.push(TOKENS_TABLE.localName);
    const removed: string[] = [];
    for (const table of emptied) removed.push(`${await emptyTable(db, table)} ${table}`);
    return `reset: removed ${removed.join(', ')}${tokens ? '' : ' (tokens kept; --tokens removes them too)'}`;
  });
}

/**
 * `seed FILE` (its text): a JSON array of plants (or `{"plants": [...]}`), ids exact. Every
 * entry is checked first, by POST /plants' schema, and none may name an id a plant holds (or
 * another entry): one that fails refuses the whole file, named by its position and id. Then each
 * is created as POST /plants creates it.
 */
export async function seedPlants(
  target: StateTarget,
  text: string,
  file = 'the seed',
): Promise<string> {
  let value: unknown;
  try {
    value = parseJson(text);
  } catch (error) {
    throw new Error(`${file} is not JSON: ${(error as Error).message}`, { cause: error });
  }
  const entries = Array.isArray(value)
    ? value
    : Array.isArray((value as { plants?: unknown } | null)?.plants)
      ? (value as { plants: unknown[] }).plants
      : undefined;
  if (!entries) throw new Error(`${file} must be a JSON array of plants (or {"plants": [...]})`);
  const plants: NewPlant[] = [];
  const ids = new Set<bigint>();
  for (const [index, entry] of entries.entries()) {
    const id = (entry as { id?: unknown } | null)?.id;
    const named = `entry ${index + 1}${typeof id === 'bigint' || typeof id === 'number' || typeof id === 'string' ? ` (id ${String(id)})` : ''}`;
    const result = v.safeParse(NewPlant, entry);
    if (!result.success) {
      throw new Error(`${file}: ${named}: ${describeIssues(result.issues)}; nothing was seeded`);
    }
    if (ids.has(result.output.id)) {
      throw new Error(`${file}: ${named}: the id is given twice; nothing was seeded`);
    }
    ids.add(result.output.id);
    plants.push(result.output);
  }
  return withClients(target, async (db) => {
    for (const [index, plant] of plants.entries()) {
      const { Item } = await db.send(
        new GetItemCommand({
          TableName: PLANTS_TABLE.localName,
          Key: { id: { N: String(plant.id) } },
          ConsistentRead: true,
        }),
      );
      if (Item && Item.deletedAt === undefined) {
        throw new Error(
          `${file}: entry ${index + 1} (id ${plant.id}): a plant holds that id; nothing was seeded`,
        );
      }
    }
    const table = new PlantsTable(makeDocumentClient(target.config), PLANTS_TABLE.localName);
    for (const plant of plants) await createPlant(table, plant, 'operator (npm run state)');
    return `seeded ${plants.length} plant${plants.length === 1 ? '' : 's'} from ${file}`;
  });
}

function counts(
  tables: Readonly<Record<string, readonly unknown[]>>,
  queues: Readonly<Record<string, readonly unknown[]>>,
): string {
  const parts = [
    ...Object.entries(tables).map(([name, items]) => `${items.length} ${name}`),
    ...Object.entries(queues).map(([name, items]) => `${items.length} on ${name}`),
  ];
  return parts.join(', ');
}
