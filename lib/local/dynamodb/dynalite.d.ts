declare module 'dynalite' {
  import type { Server } from 'node:http';

  interface DynaliteOptions {
    path?: string;
    createTableMs?: number;
    deleteTableMs?: number;
    updateTableMs?: number;
    maxItemSizeKb?: number;
    /** Serve HTTPS (with `key`, `cert` and `ca`, else dynalite's own expired certificate). */
    ssl?: boolean;
    key?: string | Buffer;
    cert?: string | Buffer;
    ca?: string | Buffer;
  }

  function dynalite(options?: DynaliteOptions): Server;
  export = dynalite;
}

/**
 * dynalite's store internals, as far as `item-changes.ts` (the stream's changes) and
 * `index-build.ts` (an index added to a table that exists) read them (dynalite is pinned).
 */
declare module 'dynalite/db' {
  interface KeyAttribute {
    AttributeName: string;
    KeyType?: 'HASH' | 'RANGE';
  }
  interface Index {
    IndexName: string;
    IndexArn?: string;
    KeySchema: KeyAttribute[];
    Projection: { ProjectionType: string };
    IndexStatus?: string;
    Backfilling?: boolean;
    [more: string]: unknown;
  }
  interface Table {
    TableName: string;
    TableArn?: string;
    KeySchema: KeyAttribute[];
    AttributeDefinitions?: { AttributeName: string; AttributeType: string }[];
    GlobalSecondaryIndexes?: Index[];
    LocalSecondaryIndexes?: Index[];
    [more: string]: unknown;
  }
  type Release = <F extends (...args: never[]) => void>(callback: F) => F;
  interface ItemDb {
    get(
      key: string,
      callback: (error: (Error & { name: string }) | null, value?: Item) => void,
    ): void;
    put(key: string, value: unknown, callback: (error?: unknown) => void): void;
    del(key: string, callback: (error?: unknown) => void): void;
    createKeyStream(options?: object): AsyncIterable<string>;
    /** The lock every write of a key (or a table's description) takes. */
    lock(key: string, critical: (release: Release) => void): void;
  }
  interface Store {
    /**
     * Tables' descriptions. Write them only with its `put` and `del`: `getTable` keeps each
     * description in memory until one of those writes it (patches/dynalite+4.0.0.patch).
     */
    readonly tableDb: ItemDb;
    getItemDb(tableName: string): ItemDb;
    getIndexDb(indexType: 'Global' | 'Local', tableName: string, indexName: string): ItemDb;
    getTable(
      name: string,
      checkStatus: boolean,
      callback: (error: Error | null, table: Table) => void,
    ): void;
  }
  type Item = Record<string, unknown>;
  const db: {
    create(options: object): Store;
    createKey(item: Item, table: Table): string;
    updateIndexes(
      store: Store,
      table: Table,
      oldItem: Item | undefined,
      newItem: Item | null | undefined,
      callback: (error?: unknown) => void,
    ): void;
    /** A 400 ValidationException with `message`, as dynalite answers its own. */
    validationError(message: string): Error;
    getIndexActions(
      indexes: Index[],
      oldItem: Item | null,
      newItem: Item | null,
      table: Table,
    ): {
      puts: { index: string; key: string; item: Item }[];
      deletes: { index: string; key: string }[];
    };
  };
  export = db;
  export type { Index, Item, Store, Table };
}

/**
 * dynalite's expression parsers (PEG.js 0.10 output), as patches/dynalite+4.0.0.patch gives them
 * PEG.js's result cache: `parse` parses with it (a text that is no expression again without it,
 * for the full syntax error), `parseWithoutCache` as dynalite's own parser does.
 */
declare module 'dynalite/db/conditionParser' {
  const parser: {
    parse(text: string, options?: object): unknown;
    parseWithoutCache(text: string, options?: object): unknown;
  };
  export = parser;
}
declare module 'dynalite/db/updateParser' {
  const parser: {
    parse(text: string, options?: object): unknown;
    parseWithoutCache(text: string, options?: object): unknown;
  };
  export = parser;
}
declare module 'dynalite/db/projectionParser' {
  const parser: {
    parse(text: string, options?: object): unknown;
    parseWithoutCache(text: string, options?: object): unknown;
  };
  export = parser;
}
