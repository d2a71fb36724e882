/**
 * Bundled in place of `node:path` (see `lib/definitions/bundling.ts`): Node's own module, without
 * the ES module facade of a built-in, which each cold start built for nothing.
 */
export const { join, sep } = globalThis.process.getBuiltinModule('node:path');
