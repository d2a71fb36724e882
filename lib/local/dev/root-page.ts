/**
 * `GET /` on the local runtime: the deployed API has nothing there (404), but a developer who
 * opens the runtime's address in a browser is told where the API and its reference are.
 */
import type { Answer, LocalPages } from '../gateway';

const HINT = {
  message: 'Plant Store (local): the API is under /plants; its reference is at /docs',
  docs: '/docs',
  openapi: '/openapi.json',
};

/** `pages`, plus a small JSON answer to `GET /` (and `HEAD /`) that points to `/docs`. */
export function withRootHint(pages: LocalPages): LocalPages {
  return async (method, pathname): Promise<Answer | undefined> => {
    if (pathname !== '/' || (method !== 'GET' && method !== 'HEAD')) {
      return pages(method, pathname);
    }
    return {
      status: 200,
      headers: { 'content-type': 'application/json', 'cache-control': 'no-cache' },
      body: Buffer.from(JSON.stringify(HINT)),
    };
  };
}
