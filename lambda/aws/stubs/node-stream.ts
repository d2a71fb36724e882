/** `node:stream` without its ES module facade: see BUNDLE_ALIASES in lib/definitions/bundling.ts. */
export const { PassThrough, Readable, Writable } =
  globalThis.process.getBuiltinModule('node:stream');
