/**
 * Every write the engine makes to an item, with the item before and after, in the order it made
 * them: what a DynamoDB stream is made of. dynalite has no stream, but each of its item writes
 * (PutItem, UpdateItem, DeleteItem, and BatchWriteItem through them) calls its `updateIndexes`
 * with both items while it holds the item's lock, and then puts or deletes the item. The change is
 * taken there and handed on once the put or delete succeeded, so a write whose condition failed,
 * or that the store did not keep, makes none; a write that leaves the item as it was makes none,
 * as in DynamoDB. The same hook refuses a write that would give an index key an empty string
 * (`index-keys.ts`): it is the one place that hooks dynalite's `updateIndexes`. dynalite is
 * pinned (package.json): its internals are what this reads.
 */
import type { Server } from 'node:http';
import dynalite from 'dynalite';
import dynaliteDb, { type Store } from 'dynalite/db';
import { isDeepStrictEqual } from 'node:util';
import { emptyIndexKey, emptyIndexKeyMessage } from './index-keys';

/** An item in DynamoDB JSON. */
export type Item = Record<string, unknown>;

/** One write of one item: `oldItem` absent for an insert, `newItem` absent for a removal. */
export interface ItemChange {
  readonly tableName: string;
  readonly keys: Item;
  readonly oldItem?: Item;
  readonly newItem?: Item;
}

/** What an engine's store is told, by the store (one per dynalite server). */
const listeners = new WeakMap<object, (change: ItemChange) => void>();
/**
 * The changes taken under an item's lock, waiting for its put or delete, by store, then by table
 * and key (two tables may hold the same key; each table's lock is its own).
 */
const waiting = new WeakMap<object, Map<string, ItemChange>>();
/** The item stores whose put and delete are already watched. */
const watched = new WeakSet<object>();

let installed = false;

/**
 * Hooks dynalite's `updateIndexes` once per process: every store refuses an empty string as an
 * index key, as DynamoDB does; stores without a listener pass through otherwise.
 */
function install(): void {
  if (installed) return;
  installed = true;
  const original = dynaliteDb.updateIndexes;
  dynaliteDb.updateIndexes = (store, table, oldItem, newItem, callback) => {
    const empty = emptyIndexKey(table, newItem);
    if (empty) {
      return callback(dynaliteDb.validationError(emptyIndexKeyMessage(empty.index, empty.key)));
    }
    const listener = listeners.get(store);
    if (!listener || isDeepStrictEqual(oldItem ?? null, newItem ?? null)) {
      return original(store, table, oldItem, newItem, callback);
    }
    const item = (newItem ?? oldItem)!;
    const key = dynaliteDb.createKey(item, table);
    const keys = Object.fromEntries(
      table.KeySchema.map((k) => [k.AttributeName, item[k.AttributeName]]),
    );
    const change: ItemChange = {
      tableName: table.TableName,
      keys,
      ...(oldItem ? { oldItem } : {}),
      ...(newItem ? { newItem } : {}),
    };
    watchItemStore(store, table.TableName, listener);
    original(store, table, oldItem, newItem, (error) => {
      // The item's put or delete follows at once, under the same lock: it hands the change on.
      if (!error) waiting.get(store)!.set(pendingKey(table.TableName, key), change);
      callback(error);
    });
  };
}

/** Where a change waits for its write: the table and the item's key in the store. */
const pendingKey = (tableName: string, key: string) => `${tableName}\u0000${key}`;

/** Wraps the table's item store's put and delete so that each hands on its key's waiting change. */
function watchItemStore(
  store: Parameters<typeof dynaliteDb.updateIndexes>[0],
  tableName: string,
  listener: (c: ItemChange) => void,
) {
  if (!waiting.has(store)) waiting.set(store, new Map());
  const items = store.getItemDb(tableName);
  if (watched.has(items)) return;
  watched.add(items);
  const pending = waiting.get(store)!;
  const done = (key: string, callback: (error?: unknown) => void) => (error?: unknown) => {
    const change = pending.get(pendingKey(tableName, key));
    pending.delete(pendingKey(tableName, key));
    if (!error && change) listener(change);
    callback(error);
  };
  const { put, del } = items;
  items.put = (key, value, callback) => put.call(items, key, value, done(key, callback));
  items.del = (key, callback) => del.call(items, key, done(key, callback));
}

/**
 * A dynalite server that refuses empty index keys, whose item writes are told to `onChange` once
 * stored (none: nobody is told), and its store: the one `dynalite()` creates, caught as it is
 * made (index builds write to it).
 */
export function dynaliteWithChanges(
  options: Parameters<typeof dynalite>[0],
  onChange?: (change: ItemChange) => void,
): { readonly server: Server; readonly store: Store } {
  install();
  const create = dynaliteDb.create;
  let store: Store | undefined;
  dynaliteDb.create = (settings) => (store = create(settings));
  try {
    const server = dynalite(options);
    if (!store)
      throw new Error('dynalite made no store: its internals changed (see item-changes.ts)');
    if (onChange) listeners.set(store, onChange);
    return { server, store };
  } finally {
    dynaliteDb.create = create;
  }
}
