/**
 * How dynalite reads its store, as patches/dynalite+4.0.0.patch (applied by patch-package at
 * install) makes it:
 * - it keeps its tables' descriptions in memory: every item request reads one, and the store is
 *   read once per table until a description is written. Each read answers what the store holds:
 *   after a table is deleted and created again with another key, after a write that overlapped a
 *   read, and whatever a caller did to the object it was given;
 * - a point read of an open store is made at once, on the calling thread (LevelDB's own, in a
 *   data directory), and answered later, as an asynchronous read is.
 */
import {
  CreateTableCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
} from '@aws-sdk/client-dynamodb';
import type { Store, Table } from 'dynalite/db';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEngine, type LocalEngine } from '../../../lib/local/dynamodb/engine';
import { dynaliteWithChanges } from '../../../lib/local/dynamodb/item-changes';

const TABLE = 'descriptions';

describe('table descriptions through the engine', () => {
  let engine: LocalEngine;
  let client: DynamoDBClient;
  beforeAll(async () => {
    engine = await startEngine({ tables: [] });
    client = new DynamoDBClient(engine.clientConfig);
  });
  afterAll(async () => {
    client?.destroy();
    await engine?.close();
  });

  const create = (key: string, type: 'N' | 'S') =>
    client.send(
      new CreateTableCommand({
        TableName: TABLE,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [{ AttributeName: key, AttributeType: type }],
        KeySchema: [{ AttributeName: key, KeyType: 'HASH' }],
      }),
    );

  /** Resolves once the table is gone (dynalite deletes it after answering DeleteTable). */
  async function gone(): Promise<void> {
    for (let tries = 0; tries < 200; tries++) {
      const error = await client.send(new DescribeTableCommand({ TableName: TABLE })).then(
        () => undefined,
        (e: Error) => e,
      );
      if (error?.name === 'ResourceNotFoundException') return;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    throw new Error(`${TABLE} is still described after its deletion`);
  }

  it('validates keys against the table created again, not the one deleted', async () => {
    await create('id', 'N');
    await client.send(new PutItemCommand({ TableName: TABLE, Item: { id: { N: '1' } } }));
    await client.send(new GetItemCommand({ TableName: TABLE, Key: { id: { N: '1' } } }));

    await client.send(new DeleteTableCommand({ TableName: TABLE }));
    await gone();
    await create('name', 'S');

    await expect(
      client.send(new PutItemCommand({ TableName: TABLE, Item: { id: { N: '1' } } })),
    ).rejects.toMatchObject({
      name: 'ValidationException',
      message: expect.stringMatching(/missing.*key/i),
    });
    await client.send(new PutItemCommand({ TableName: TABLE, Item: { name: { S: 'fern' } } }));
    const { Item } = await client.send(
      new GetItemCommand({ TableName: TABLE, Key: { name: { S: 'fern' } } }),
    );
    expect(Item).toEqual({ name: { S: 'fern' } });
  });
});

describe('table descriptions in the store', () => {
  let store: Store;
  const description = (status: string): Table => ({
    TableName: TABLE,
    TableStatus: status,
    KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
    AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'N' }],
  });
  const read = () =>
    new Promise<Table>((resolve, reject) =>
      store.getTable(TABLE, false, (error, table) => (error ? reject(error) : resolve(table))),
    );
  const write = (table: Table) =>
    new Promise<void>((resolve, reject) =>
      store.tableDb.put(TABLE, table, (error) => (error ? reject(error) : resolve())),
    );

  beforeEach(async () => {
    ({ store } = dynaliteWithChanges({}));
    await write(description('ACTIVE'));
  });

  /** Counts the store reads of descriptions while `run` runs. */
  async function storeReads(run: () => Promise<unknown>): Promise<number> {
    const get = store.tableDb.get;
    let reads = 0;
    store.tableDb.get = (key, callback) => {
      reads++;
      get.call(store.tableDb, key, callback);
    };
    try {
      await run();
    } finally {
      store.tableDb.get = get;
    }
    return reads;
  }

  it('reads the store once until a description is written', async () => {
    expect(await storeReads(async () => [await read(), await read(), await read()])).toBe(1);
    await write(description('UPDATING'));
    expect(
      await storeReads(async () => expect(await read()).toMatchObject({ TableStatus: 'UPDATING' })),
    ).toBe(1);
    expect(await storeReads(read)).toBe(0);
  });

  it('answers a fresh object each time, from the store or kept', async () => {
    const change = (table: Table) => {
      table.KeySchema[0]!.AttributeName = 'changed';
      table.TableStatus = 'DELETING';
    };
    // Changed in the callback itself, as dynalite's UpdateTable changes what it read.
    const readAndChange = () =>
      new Promise<void>((resolve, reject) =>
        store.getTable(TABLE, false, (error, table) => {
          if (error) return reject(error);
          change(table);
          resolve();
        }),
      );
    expect(await storeReads(readAndChange)).toBe(1);
    expect(await storeReads(readAndChange)).toBe(0);
    expect(await read()).toEqual(description('ACTIVE'));
  });

  it('keeps nothing from a store read that a write overlapped', async () => {
    // A store read that began before the write and answers after it: what it read is the old
    // description, which it answers, but the next read must not.
    const get = store.tableDb.get;
    let answer!: () => void;
    const held = new Promise<void>((resolve) => (answer = resolve));
    store.tableDb.get = (key, callback) =>
      get.call(store.tableDb, key, (error, value) => void held.then(() => callback(error, value)));
    const overlapped = read();
    store.tableDb.get = get;
    await write(description('UPDATING'));
    answer();
    expect(await overlapped).toMatchObject({ TableStatus: 'ACTIVE' });

    expect(await read()).toMatchObject({ TableStatus: 'UPDATING' });
  });

  it('keeps nothing from a store read made while a write was in flight', async () => {
    // The store read starts after the write was issued and before the store applied it: it reads
    // the old description, which it answers, but the next read must not.
    const db = (store as unknown as { db: { put: (...args: unknown[]) => void } }).db;
    const put = db.put;
    let apply!: () => void;
    const held = new Promise<void>((resolve) => (apply = resolve));
    db.put = (...args: unknown[]) => void held.then(() => put.apply(db, args));
    const written = write(description('UPDATING'));
    db.put = put;
    expect(await read()).toMatchObject({ TableStatus: 'ACTIVE' });
    apply();
    await written;

    expect(await read()).toMatchObject({ TableStatus: 'UPDATING' });
  });

  it('answers a deleted table as not found', async () => {
    await read();
    await new Promise<void>((resolve, reject) =>
      store.tableDb.del(TABLE, (error) => (error ? reject(error) : resolve())),
    );
    await expect(read()).rejects.toMatchObject({ name: 'NotFoundError', statusCode: 400 });
  });
});

describe('point reads of a data directory', () => {
  let dir: string;
  let store: Store & { db: LevelDb };
  type LevelDb = {
    status: string;
    get(key: string, callback: (error: Error | null, value?: unknown) => void): void;
    _get(...args: unknown[]): Promise<unknown>;
    _getSync(...args: unknown[]): unknown;
  };
  const get = (key: string) =>
    new Promise<unknown>((resolve, reject) =>
      store.db.get(key, (error, value) => (error ? reject(error) : resolve(value))),
    );

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'plant-store-reads-'));
    store = dynaliteWithChanges({ path: dir }).store as typeof store;
    await new Promise<void>((resolve, reject) =>
      store.tableDb.put(TABLE, { TableName: TABLE }, (error) =>
        error ? reject(error) : resolve(),
      ),
    );
  });
  afterEach(async () => {
    await (store.db as unknown as { close(): Promise<void> }).close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('are made on the calling thread, and answered later', async () => {
    const levels = Object.getPrototypeOf(store.db) as LevelDb;
    const async = jest.spyOn(levels, '_get');
    const sync = jest.spyOn(levels, '_getSync');
    try {
      let answered: unknown;
      store.db.get(`table~${TABLE}`, (error, value) => (answered = error ?? value));
      expect(sync).toHaveBeenCalledTimes(1);
      expect(answered).toBeUndefined();
      await new Promise((resolve) => setImmediate(resolve));
      expect(answered).toEqual({ TableName: TABLE });
      expect(await get('table~missing')).toBeUndefined();
      expect(async).not.toHaveBeenCalled();
    } finally {
      async.mockRestore();
      sync.mockRestore();
    }
  });
});
