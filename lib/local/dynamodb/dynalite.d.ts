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
