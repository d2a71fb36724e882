/** `node:crypto` without its ES module facade: see BUNDLE_ALIASES in lib/definitions/bundling.ts. */
export const { createHash, createHmac, createSecretKey, getRandomValues, randomBytes, randomInt } =
  globalThis.process.getBuiltinModule('node:crypto');
