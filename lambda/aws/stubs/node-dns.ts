/** `node:dns` without its ES module facade: see BUNDLE_ALIASES in lib/definitions/bundling.ts. */
export const { promises } = globalThis.process.getBuiltinModule('node:dns');
