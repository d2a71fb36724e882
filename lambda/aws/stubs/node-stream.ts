/**
 * Bundled in place of `node:stream` (see `lib/definitions/bundling.ts`): Node's own module, without
 * the ES module facade of a built-in, which each cold start built for nothing. Only the names
 * the bundled modules import are exported (esbuild checks those of modules it then leaves out):
 * a new one fails the build.
 */
export const { PassThrough, Readable, Writable } =
  globalThis.process.getBuiltinModule('node:stream');
