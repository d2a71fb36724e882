/** `node:https` without its ES module facade: see BUNDLE_ALIASES in lib/definitions/bundling.ts. */
const https = globalThis.process.getBuiltinModule('node:https');

export default https;
export const { request } = https;
