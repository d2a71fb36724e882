/**
 * Bundled in place of `node:fs` (see `lib/definitions/bundling.ts`): Node's module, loaded before
 * any function, without the ES module facade of a built-in. Making the facade reads every
 * export, `promises` too, which loads `node:fs/promises` with `readline` and the REPL's history
 * (~1 ms of each cold start) for an API no function calls. Only the names imported by the modules
 * the bundles reach are exported (the SDK's and our stack map's; esbuild checks the imports of a
 * module even when it leaves the module out): a new named import fails the build, and so does a
 * namespace's read of a name not here, `fs.name` (`logOverride` in `lib/definitions/bundling.ts`;
 * esbuild does not follow `const { name } = fs` or `fs[name]`).
 */
const fs = globalThis.process.getBuiltinModule('node:fs');

export const { createReadStream, existsSync, fstatSync, lstatSync, readFileSync } = fs;

/**
 * For the SDK's one use, `body instanceof ReadStream` (a request body's length; ours are strings),
 * checked against Node's class when asked: reading `fs.ReadStream` loads the file streams and, with
 * them, `node:fs/promises`.
 */
export const ReadStream = {
  [Symbol.hasInstance]: (value: unknown): boolean => value instanceof fs.ReadStream,
};
