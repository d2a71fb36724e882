/** `node:path` without its ES module facade: see BUNDLE_ALIASES in lib/definitions/bundling.ts. */
export const { join, sep } = globalThis.process.getBuiltinModule('node:path');
