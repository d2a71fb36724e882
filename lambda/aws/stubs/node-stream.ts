/**
 * Bundled in place of `node:stream` (see `lib/definitions/bundling.ts`): Node's own module, without
 * the ES module facade of a built-in, which each cold start built for nothing.
 */
export const { PassThrough, Readable, Writable } =
  globalThis.process.getBuiltinModule('node:stream');
