/** `node:os` without its ES module facade: see BUNDLE_ALIASES in lib/definitions/bundling.ts. */
export const { homedir, platform, release } = globalThis.process.getBuiltinModule('node:os');
