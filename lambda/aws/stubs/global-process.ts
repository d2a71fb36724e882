/**
 * Bundled in place of `node:process` (see `lib/definitions/bundling.ts`): the same object as the global
 * `process`, without loading the ESM wrapper of a built-in at cold start. Only the names the SDK
 * imports are exported; a new one fails the build instead of reading `undefined`.
 */
const { env, versions } = globalThis.process;

export default globalThis.process;
export { env, versions };
