/**
 * Adding a global secondary index to a table that exists, as DynamoDB's UpdateTable does and
 * dynalite does not: a data directory written before an index existed (1.1.0's plants table
 * has no `byTag`) gets it when the engine opens it. The index is added to the table's
 * description at once, CREATING and backfilling, so that every write from then on maintains it;
 * the items already stored are then indexed one at a time under the engine's own item lock, and
 * the index turns ACTIVE. Until then a Query or Scan of it is refused with DynamoDB's own
 * ValidationException ("Cannot read from backfilling global secondary index"), never answered
 * from a partial index. A build cut short (the engine closed) starts again at the next open.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import dynaliteDb, { type Store, type Table } from 'dynalite/db';
import { emptyIndexKey } from './index-keys';
import { replay } from '../iam/gate';
import { BACKFILLING_MESSAGE } from '../../../lambda/plants/index-building';
import type { IndexDefinition, TableDefinition } from '../../../lambda/aws/table-definition';

/** The indexes being built on one engine, and the gate that keeps reads off them meanwhile. */
export class IndexBuilds {
  private readonly building = new Set<string>();
  private readonly runs: Promise<void>[] = [];
  private closed = false;
  private stop: () => void = () => undefined;
  private readonly stopped = new Promise<void>((resolve) => (this.stop = resolve));

  constructor(private readonly store: Store) {}

  /**
   * Adds to the stored table each index of `definition` it lacks and starts building each that
   * is not ACTIVE; resolves once the table's description has them (the backfills go on).
   * `hold`: the backfills wait for it (a test's way to see a build in progress).
   */
  async ensure(definition: TableDefinition, hold?: Promise<void>): Promise<void> {
    const name = definition.localName;
    const table = await this.updateTable(name, (stored) => {
      for (const index of definition.indexes ?? []) {
        if (stored.GlobalSecondaryIndexes?.some((i) => i.IndexName === index.name)) continue;
        addIndex(stored, index);
      }
    });
    for (const index of table.GlobalSecondaryIndexes ?? []) {
      if (index.IndexStatus === 'ACTIVE') continue;
      this.building.add(`${name}/${index.IndexName}`);
      // A build that fails (the store closed under it) stays CREATING: lists by tag keep
      // answering 503, and the next open builds it again.
      this.runs.push(this.backfill(name, index.IndexName, hold).catch(() => undefined));
    }
  }

  /** Whether an index is still being built. */
  isBuilding(table: string, index: string): boolean {
    return this.building.has(`${table}/${index}`);
  }

  /**
   * Lets `req` on to `next` unless it reads an index being built, which it answers as DynamoDB
   * does (400 ValidationException). Passes the request on untouched when nothing is building.
   */
  admit(req: IncomingMessage, res: ServerResponse, next: (req: IncomingMessage) => void): void {
    const target = String(req.headers['x-amz-target'] ?? '');
    if (this.building.size === 0 || !/\.(Query|Scan)$/.test(target)) return next(req);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      let input: { TableName?: unknown; IndexName?: unknown } = {};
      try {
        input = JSON.parse(body.toString('utf8') || '{}') as typeof input;
      } catch {
        // Not JSON: the engine answers it.
      }
      if (this.isBuilding(String(input.TableName), String(input.IndexName))) {
        const answer = JSON.stringify({
          __type: 'com.amazon.coral.validate#ValidationException',
          message: BACKFILLING_MESSAGE,
        });
        res.writeHead(400, {
          'content-type': 'application/x-amz-json-1.0',
          'content-length': Buffer.byteLength(answer),
        });
        return void res.end(answer);
      }
      next(replay(req, body));
    });
  }

  /** Stops the backfills after the item at hand (the next open finishes them) and waits for them. */
  async close(): Promise<void> {
    this.closed = true;
    this.stop();
    await Promise.allSettled(this.runs);
  }

  /** Indexes every stored item of `table` in `index`, then marks the index ACTIVE. */
  private async backfill(table: string, index: string, hold?: Promise<void>): Promise<void> {
    // A held build does not hold the engine open.
    await Promise.race([hold, this.stopped]);
    if (this.closed) return;
    const items = this.store.getItemDb(table);
    const keys: string[] = [];
    for await (const key of items.createKeyStream()) keys.push(String(key));
    for (const key of keys) {
      if (this.closed) return;
      // Under the item's lock, as every write takes it: the item indexed is the item stored.
      await new Promise<void>((resolve, reject) => {
        items.lock(key, (release) => {
          const done = release((error?: unknown) => (error ? reject(error) : resolve()));
          items.get(key, (error, item) => {
            if (error && error.name !== 'NotFoundError') return done(error);
            if (!item) return done();
            this.store.getTable(table, false, (failed, stored) => {
              if (failed) return done(failed);
              // This index's entry alone, written straight to it: no item changes, so no stream
              // record (dynalite's updateIndexes is where the stream watches writes).
              const built = (stored.GlobalSecondaryIndexes ?? []).filter(
                (i) => i.IndexName === index,
              );
              // An item whose key would be empty is left out, as DynamoDB's backfill leaves out
              // an index key violation (the item stays as it is in the table).
              if (emptyIndexKey({ ...stored, GlobalSecondaryIndexes: built }, item)) return done();
              const { puts } = dynaliteDb.getIndexActions(built, null, item, stored);
              const indexDb = this.store.getIndexDb('Global', table, index);
              let left = puts.length;
              if (left === 0) return done();
              for (const put of puts) {
                indexDb.put(put.key, put.item, (error) => {
                  if (error) return done(error);
                  if (--left === 0) done();
                });
              }
            });
          });
        });
      });
    }
    if (this.closed) return;
    await this.updateTable(table, (stored) => {
      const built = stored.GlobalSecondaryIndexes?.find((i) => i.IndexName === index);
      if (!built) return;
      built.IndexStatus = 'ACTIVE';
      delete built.Backfilling;
    });
    this.building.delete(`${table}/${index}`);
  }

  /** Changes the stored description of `name` under the engine's table lock; answers it. */
  private updateTable(name: string, change: (table: Table) => void): Promise<Table> {
    const tables = this.store.tableDb;
    return new Promise((resolve, reject) => {
      tables.lock(name, (release) => {
        const done = release((error?: unknown, table?: Table) =>
          error ? reject(error) : resolve(table!),
        );
        this.store.getTable(name, false, (error, table) => {
          if (error) return done(error);
          change(table);
          tables.put(name, table, (failed) => done(failed ?? undefined, table));
        });
      });
    });
  }
}

/** Adds `index` to `table`'s description, CREATING and backfilling, as UpdateTable's Create does. */
function addIndex(table: Table, index: IndexDefinition): void {
  const definitions = (table.AttributeDefinitions ??= []);
  for (const key of [index.partitionKey, index.sortKey]) {
    if (!definitions.some((a) => a.AttributeName === key.name)) {
      definitions.push({ AttributeName: key.name, AttributeType: key.type });
    }
  }
  table.GlobalSecondaryIndexes = [
    ...(table.GlobalSecondaryIndexes ?? []),
    {
      IndexName: index.name,
      IndexArn: `${table.TableArn}/index/${index.name}`,
      KeySchema: [
        { AttributeName: index.partitionKey.name, KeyType: 'HASH' },
        { AttributeName: index.sortKey.name, KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'ALL' },
      IndexStatus: 'CREATING',
      Backfilling: true,
      IndexSizeBytes: 0,
      ItemCount: 0,
      ProvisionedThroughput: {
        ReadCapacityUnits: 0,
        WriteCapacityUnits: 0,
        NumberOfDecreasesToday: 0,
      },
    },
  ];
}
