/** `node:net` without its ES module facade: see BUNDLE_ALIASES in lib/definitions/bundling.ts. */
export const { BlockList, isIP } = globalThis.process.getBuiltinModule('node:net');
