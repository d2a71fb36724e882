/**
 * Bundled in place of `node:http` (see `lib/definitions/bundling.ts`): Node's own module, without
 * the ES module facade of a built-in. The SDK imports `node:http` only for an `http://` endpoint
 * (`npm start`'s engine and queues; Lambda's endpoints are `https://`), on the client's first
 * call. Building the facade reads every export, `WebSocket`'s lazy getter too, which loads undici:
 * ~75 ms of CPU on the first call of each sandbox, for a class no function uses. Only the names
 * the SDK reads are exported: its HTTP handler reads the default's `Agent` and `request`, its
 * instance-metadata region lookup `request`.
 */
const http = globalThis.process.getBuiltinModule('node:http');

export default http;
export const { Agent, request } = http;
