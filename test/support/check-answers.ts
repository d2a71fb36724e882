/**
 * Jest setup for every suite: in the e2e suites, the global `fetch` checks each answer against
 * `openapi.json` (see `http.ts`). Other suites talk to stubs and engines, not to the API, and
 * do not load the checker (Ajv and its formats, loaded again by every suite that imports them).
 */
import { sep } from 'node:path';

if (expect.getState().testPath?.includes(`${sep}e2e${sep}`)) {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { checkedFetch } = require('./http') as typeof import('./http');
  globalThis.fetch = checkedFetch as typeof fetch;
}
