/**
 * Bundled in place of `node:fs/promises` (see `lib/definitions/bundling.ts`): `readFile` on
 * `node:fs`'s callback, which Node has loaded before any function. The SDK imports the promise
 * API at the top of its shared-config loader and reads `~/.aws/config` with it on a client's
 * first call, a file Lambda does not have. Loading `node:fs/promises` also loads `readline` and
 * the REPL's history (its `FileHandle.readLines`): ~1 ms of each cold start, for one rejected
 * read. Only the name the SDK imports is exported; a new one fails the build.
 */
import type { PathLike } from 'node:fs';

const fs = globalThis.process.getBuiltinModule('node:fs');

/** `fs/promises.readFile` for the SDK's only call: a path and an encoding, a string back. */
export function readFile(path: PathLike, encoding: BufferEncoding): Promise<string> {
  return new Promise((resolve, reject) => {
    fs.readFile(path, encoding, (error, text) => (error ? reject(error) : resolve(text)));
  });
}
