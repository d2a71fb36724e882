/**
 * The API reference that `npm start` serves beside the emulated API: `GET /openapi.json` (the
 * committed document) and `GET /docs` (Swagger UI, served from the `swagger-ui-dist` package in
 * node_modules, never from a CDN). Local only: the stack has no such routes, and no authorizer
 * runs for them; the operations the page sends go through the API like any client's.
 */
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { PROJECT_ROOT } from '../../definitions/bundling';
import type { Answer, LocalPages } from '../gateway';

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
//
// Swagger UI reads JSON with JSON.parse, which rounds 9007199254740993 to 9007199254740992, in
// the document's examples and in every answer it shows. So numbers are read here by their
// source text (the reviver's context.source), and each one a float64 would change travels
// through Swagger UI as a marked string, "\u2063<digits>\u2063", which the code blocks show as
// the bare digits again and requests send as such: the page shows what the API sent, digit for
// digit. (A browser without source text access shows what Swagger UI alone would.)
const INIT = `const MARK = '\\u2063';
const MARKED = /"\\u2063(-?[0-9][0-9.eE+-]*)\\u2063"/g;
const unmark = (text) =>
  typeof text === 'string' ? text.replace(MARKED, '$1').replaceAll(MARK, '') : text;
const exact = (key, value, context) =>
  typeof value === 'number' && context && context.source !== undefined && String(value) !== context.source
    ? MARK + context.source + MARK
    : value;
const parseExact = (text) => JSON.parse(text, exact);

const ExactNumbers = () => ({
  wrapComponents: {
    // Every code block (answers, examples, curl), for what it shows and what its copy button copies.
    HighlightCode: (Original, system) => (props) =>
      system.React.createElement(Original, { ...props, children: unmark(props.children) }),
    // The request body editor.
    TextArea: (Original, system) => (props) =>
      system.React.createElement(Original, { ...props, value: unmark(props.value) }),
  },
});

// A parameter's schema checks and fills an input field: there, an example is the digits
// themselves and a bound a number again (Swagger UI compares the input with it).
const BOUNDS = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'];
function unmarkParameters(spec) {
  const operations = Object.values(spec.paths || {}).flatMap((item) => Object.values(item));
  for (const parameter of operations.flatMap((operation) => operation.parameters || [])) {
    const schema = parameter.schema || {};
    if (Array.isArray(schema.examples)) schema.examples = schema.examples.map(unmark);
    if ('example' in schema) schema.example = unmark(schema.example);
    for (const bound of BOUNDS) if (bound in schema) schema[bound] = Number(unmark(schema[bound]));
  }
  return spec;
}

// Whatever else shows a marked value as text (the schema view, a validation message) shows
// its digits too: text nodes are mended as they appear or change.
const UNQUOTE = /"?\\u2063([^\\u2063]*)\\u2063"?/g;
const mend = (node) => {
  if (node.nodeValue.includes(MARK)) node.nodeValue = node.nodeValue.replace(UNQUOTE, '$1');
};
new MutationObserver((records) => {
  for (const record of records) {
    if (record.type === 'characterData') mend(record.target);
    for (const added of record.addedNodes) {
      if (added.nodeType === Node.TEXT_NODE) mend(added);
      if (added.nodeType !== Node.ELEMENT_NODE) continue;
      const walker = document.createTreeWalker(added, NodeFilter.SHOW_TEXT);
      while (walker.nextNode()) mend(walker.currentNode);
    }
  }
}).observe(document.getElementById('swagger-ui'), {
  subtree: true,
  childList: true,
  characterData: true,
});

fetch('/openapi.json')
  .then((response) => response.text())
  .then((text) => {
    const spec = unmarkParameters(parseExact(text));
    const port = spec.servers && spec.servers[0].variables && spec.servers[0].variables.port;
    if (port && location.port) port.default = location.port;
    window.ui = SwaggerUIBundle({
      spec,
      dom_id: '#swagger-ui',
      deepLinking: true,
      tryItOutEnabled: true,
      displayRequestDuration: true,
      plugins: [ExactNumbers],
      requestInterceptor: (request) => {
        request.url = request.url.replaceAll('%E2%81%A3', '');
        request.body = unmark(request.body);
        return request;
      },
      responseInterceptor: (response) => {
        if (/json/i.test(response.headers['content-type'] || '') && response.text) {
          try {
            response.text = JSON.stringify(parseExact(response.text));
          } catch {
            // Not JSON after all: Swagger UI shows it raw.
          }
        }
        return response;
      },
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
