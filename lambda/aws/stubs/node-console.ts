/** `node:console` without its ES module facade: see BUNDLE_ALIASES in lib/definitions/bundling.ts. */
export const { Console } = globalThis.process.getBuiltinModule('node:console');
