/**
 * The local data as a whole: `save` writes every table's items (in DynamoDB's own JSON: numbers
 * as exact decimal text, sealed secrets as the ciphertext they are) and the messages of the
 * dead-letter and failure queues to `<data dir>/states/<name>.json`; `load` checks every item
 * first, then puts them back as they were (what the file does not hold is removed); `reset` empties the plants and the subscribers
 * (the tokens too when asked). Everything goes through the running engine, signed as the
 * operator (`engine.ts`): it works while `npm start` runs.
 */
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import {
  PLANTS_TABLE,
  SUBSCRIPTIONS_TABLE,
  TABLES,
  TOKENS_TABLE,
} from '../../../lambda/aws/tables';
import { UsageError } from '../../cli/args';
import { DEV_TOKEN_ID, LOCAL_QUEUE_NAMES, localQueueUrl } from '../../npm-start/find';
import { SCOPES_REVISION } from '../../../lambda/tokens/principal';
import { drain, emptyTable, scanAll, withClients, writeAll, type StateTarget } from './engine';

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

/** The file of the state `name`, or a usage mistake saying what a name may be. */
export function stateFile(dataDir: string, name: string): string {
  if (!NAME.test(name)) {
    throw new UsageError(
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
  const state = checkedState(text, file);
  return withClients(target, async (db, sqs) => {
    for (const table of TABLES) {
      // The saved items are written first, then only what the file does not hold is removed.
      const key = table.partitionKey.name;
      const saved = state.tables[table.localName]!;
      const items = table === TOKENS_TABLE ? saved.map(withCurrentDevToken) : saved;
      const kept = new Set(items.map((item) => JSON.stringify(item[key])));
      const now = await scanAll(db, table.localName);
      await writeAll(
        db,
        table.localName,
        items.map((item) => ({ PutRequest: { Item: item } })),
      );
      await writeAll(
        db,
        table.localName,
        now
          .filter((item) => !kept.has(JSON.stringify(item[key])))
          .map((item) => ({ DeleteRequest: { Key: { [key]: item[key]! } } })),
      );
    }
    for (const queue of KEPT_QUEUES) {
      const url = localQueueUrl(target.endpoint, queue);
      await drain(sqs, url, false);
      for (const { body } of state.queues[queue]!) {
        await sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: body }));
      }
    }
    return `loaded ${name}: ${counts(state.tables, state.queues)} (saved ${state.savedAt})`;
  });
}

/**
 * `item`, unless it is the dev token's: that one keeps every scope at what scopes mean now (as
 * `npm start` makes it at each start), also from a state saved before scopes had a revision.
 */
function withCurrentDevToken(item: Record<string, AttributeValue>): Record<string, AttributeValue> {
  if (item.tokenId?.S !== DEV_TOKEN_ID) return item;
  return { ...item, scopesRevision: { N: String(SCOPES_REVISION) } };
}

/** DynamoDB's attribute value types, as its JSON names them. */
const VALUE_TYPES = new Set(['S', 'N', 'B', 'BOOL', 'NULL', 'M', 'L', 'SS', 'NS', 'BS']);
const NUMBER = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/;

/**
 * The saved state in `text`, every item checked (a known table, its key present and typed, each
 * value one DynamoDB type, no key twice) and every kept queue's messages, before anything is
 * changed; or an error naming the first thing wrong.
 */
function checkedState(text: string, file: string): SavedState {
  let state: SavedState;
  try {
    // DynamoDB's JSON keeps every number as text: JSON.parse changes none of them.
    state = JSON.parse(text) as SavedState;
  } catch {
    throw new Error(`${file} is not complete JSON; nothing was loaded`);
  }
  const wrong = (what: string) => new Error(`${file}: ${what}; nothing was loaded`);
  const isObject = (value: unknown): value is Record<string, unknown> =>
    typeof value === 'object' && value !== null && !Array.isArray(value);
  if (!isObject(state) || state.format !== 1 || !isObject(state.tables)) {
    throw wrong('not a saved state (format 1 with tables)');
  }
  for (const name of Object.keys(state.tables)) {
    if (!TABLES.some((t) => t.localName === name)) throw wrong(`unknown table ${name}`);
  }
  for (const table of TABLES) {
    const items: unknown = state.tables[table.localName];
    if (!Array.isArray(items)) throw wrong(`no ${table.localName} list`);
    const { name: key, type } = table.partitionKey;
    const seen = new Set<string>();
    items.forEach((item: unknown, index) => {
      const at = `${table.localName} item ${index + 1}`;
      if (!isObject(item)) throw wrong(`${at} is not an item`);
      for (const [attribute, value] of Object.entries(item)) {
        const types = isObject(value) ? Object.keys(value) : [];
        if (types.length !== 1 || !VALUE_TYPES.has(types[0]!)) {
          throw wrong(`${at}: ${attribute} is not a DynamoDB value`);
        }
      }
      const value = (item[key] as Record<string, unknown> | undefined)?.[type];
      if (typeof value !== 'string' || value === '' || (type === 'N' && !NUMBER.test(value))) {
        throw wrong(`${at} has no ${key} of type ${type}`);
      }
      if (seen.has(value)) throw wrong(`${at}: ${key} ${value} is there twice`);
      seen.add(value);
    });
  }
  if (!isObject(state.queues)) throw wrong('no queues');
  for (const queue of KEPT_QUEUES) {
    const messages: unknown = state.queues[queue];
    if (!Array.isArray(messages)) throw wrong(`no ${queue} list`);
    messages.forEach((message: unknown, index) => {
      if (!isObject(message) || typeof message.body !== 'string' || message.body === '') {
        throw wrong(`${queue} message ${index + 1} has no body`);
      }
    });
  }
  return state;
}

/** `reset [--tokens]`: no plants, no subscribers; no tokens either when asked. */
export async function resetState(target: StateTarget, tokens: boolean): Promise<string> {
  return withClients(target, async (db) => {
    const emptied: string[] = [PLANTS_TABLE.localName, SUBSCRIPTIONS_TABLE.localName];
    if (tokens) emptied.push(TOKENS_TABLE.localName);
    const removed: string[] = [];
    for (const table of emptied) removed.push(itemsIn(table, await emptyTable(db, table)));
    return `reset: removed ${removed.join(', ')}${tokens ? '' : ' (tokens kept; --tokens removes them too)'}`;
  });
}

/**
 * What a table held, as items: not plants or subscribers, since a table also holds deleted
 * plants' tombstones and each subscriber's attempts item.
 */
function itemsIn(table: string, count: number): string {
  return `${count} ${count === 1 ? 'item' : 'items'} in ${table}`;
}

function counts(
  tables: Readonly<Record<string, readonly unknown[]>>,
  queues: Readonly<Record<string, readonly unknown[]>>,
): string {
  const parts = [
    ...Object.entries(tables).map(([name, items]) => itemsIn(name, items.length)),
    ...Object.entries(queues).map(
      ([name, items]) =>
        `${items.length} ${items.length === 1 ? 'message' : 'messages'} on ${name}`,
    ),
  ];
  return parts.join(', ');
}
