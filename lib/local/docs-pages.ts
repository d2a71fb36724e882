/**
 * The API reference that `npm start` serves beside the emulated API: `GET /openapi.json` (the
 * committed document) and `GET /docs` (Swagger UI, served from the `swagger-ui-dist` package in
 * node_modules, never from a CDN). Local only: the stack has no such routes, and no authorizer
 * runs for them; the operations the page sends go through the API like any client's.
 */
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { PROJECT_ROOT } from '../definitions/bundling';
import type { Answer, LocalPages } from './gateway';

const SWAGGER_UI = dirname(require.resolve('swagger-ui-dist/package.json'));

const HTML = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>Plant Store API reference</title>
    <link rel="stylesheet" href="/docs/swagger-ui.css" />
    <link rel="icon" type="image/png" href="/docs/favicon-32x32.png" />
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="/docs/swagger-ui-bundle.js"></script>
    <script src="/docs/init.js"></script>
  </body>
</html>
`;

// The document's first server is this runtime; its port variable defaults to the one the page
// came from, so "Try it out" reaches this runtime whatever PORT is.
const INIT = `fetch('/openapi.json')
  .then((response) => response.json())
  .then((spec) => {
    const port = spec.servers && spec.servers[0].variables && spec.servers[0].variables.port;
    if (port && location.port) port.default = location.port;
    window.ui = SwaggerUIBundle({
      spec,
      dom_id: '#swagger-ui',
      deepLinking: true,
      tryItOutEnabled: true,
      displayRequestDuration: true,
    });
  });
`;

/** Each page: where its bytes come from and its media type. */
const PAGES: Readonly<Record<string, { source: string | (() => string); type: string }>> = {
  '/openapi.json': { source: join(PROJECT_ROOT, 'openapi.json'), type: 'application/json' },
  '/docs': { source: () => HTML, type: 'text/html; charset=utf-8' },
  '/docs/init.js': { source: () => INIT, type: 'text/javascript; charset=utf-8' },
  '/docs/swagger-ui.css': {
    source: join(SWAGGER_UI, 'swagger-ui.css'),
    type: 'text/css; charset=utf-8',
  },
  '/docs/swagger-ui-bundle.js': {
    source: join(SWAGGER_UI, 'swagger-ui-bundle.js'),
    type: 'text/javascript; charset=utf-8',
  },
  '/docs/favicon-32x32.png': { source: join(SWAGGER_UI, 'favicon-32x32.png'), type: 'image/png' },
};

/** Whether a request is for one of these pages rather than for the API. */
export function isDocsPage(method: string, pathname: string): boolean {
  return (method === 'GET' || method === 'HEAD') && Object.hasOwn(PAGES, pathname);
}

/** The pages, for the gateway's `localPages` option; files are read on each request. */
export function docsPages(): LocalPages {
  return async (method, pathname): Promise<Answer | undefined> => {
    if (!isDocsPage(method, pathname)) return undefined;
    const page = PAGES[pathname]!;
    const body =
      typeof page.source === 'string' ? await readFile(page.source) : Buffer.from(page.source());
    return {
      status: 200,
      headers: { 'content-type': page.type, 'cache-control': 'no-cache' },
      body,
    };
  };
}
