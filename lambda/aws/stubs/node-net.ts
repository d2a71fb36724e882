/**
 * Bundled in place of `node:net` (see `lib/definitions/bundling.ts`): Node's own module, without
 * the ES module facade of a built-in, which each cold start built for nothing.
 */
export const { BlockList, isIP } = globalThis.process.getBuiltinModule('node:net');
