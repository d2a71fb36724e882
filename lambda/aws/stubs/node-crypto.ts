/**
 * Bundled in place of `node:crypto` (see `lib/definitions/bundling.ts`): Node's own module, without
 * the ES module facade of a built-in, which each cold start built for nothing.
 */
export const { createHash, createHmac, getRandomValues, randomBytes, randomInt } =
  globalThis.process.getBuiltinModule('node:crypto');
