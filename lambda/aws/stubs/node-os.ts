/**
 * Bundled in place of `node:os` (see `lib/definitions/bundling.ts`): Node's own module, without
 * the ES module facade of a built-in, which each cold start built for nothing.
 */
export const { homedir, platform, release } = globalThis.process.getBuiltinModule('node:os');
