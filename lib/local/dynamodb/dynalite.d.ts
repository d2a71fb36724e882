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

/** dynalite's store internals, as far as `item-changes.ts` reads them (dynalite is pinned). */
declare module 'dynalite/db' {
  interface KeyAttribute {
    AttributeName: string;
  }
  interface Table {
    TableName: string;
    KeySchema: KeyAttribute[];
  }
  interface ItemDb {
    put(key: string, value: unknown, callback: (error?: unknown) => void): void;
    del(key: string, callback: (error?: unknown) => void): void;
  }
  interface Store {
    getItemDb(tableName: string): ItemDb;
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
  };
  export = db;
}
