/**
 * Bundled in place of `node:path` (see `lib/definitions/bundling.ts`): Node's own module, without
 * the ES module facade of a built-in, which each cold start built for nothing. Only the names
 * the bundled modules import are exported (esbuild checks those of modules it then leaves out):
 * a new one fails the build.
 */
export const { join, sep } = globalThis.process.getBuiltinModule('node:path');
