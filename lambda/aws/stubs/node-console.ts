/**
 * Bundled in place of `node:console` (see `lib/definitions/bundling.ts`): Node's own module, without
 * the ES module facade of a built-in, which each cold start built for nothing.
 */
export const { Console } = globalThis.process.getBuiltinModule('node:console');
