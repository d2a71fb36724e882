/**
 * Jest setup for every suite: in the e2e suites, the global `fetch` checks each answer against
 * `openapi.json` (see `http.ts`). Other suites talk to stubs and engines, not to the API.
 */
import { sep } from 'node:path';
import { checkedFetch } from './http';

if (expect.getState().testPath?.includes(`${sep}e2e${sep}`)) {
  globalThis.fetch = checkedFetch as typeof fetch;
}
