/**
 * The one way e2e suites send requests: `fetch`, checked. `check-answers.ts` installs
 * `checkedFetch` as the global `fetch` of every suite under an `e2e/` folder (`test/<subject>/e2e/`), so each answer a suite
 * receives must be one `openapi.json` describes; an undescribed status or shape fails the test.
 * The local docs pages are not part of the API and pass unchecked; so does `uncheckedFetch`,
 * for a request that is deliberately not an API call.
 */
import { isDocsPage } from '../../lib/local/dev/docs-pages';
import { AnswerChecker } from './openapi-answers';

/** The platform's fetch, unchecked. */
export const uncheckedFetch: typeof fetch = globalThis.fetch.bind(globalThis);

let checker: AnswerChecker | undefined;

/** Statuses whose answers have no body, for which `Response` refuses one. */
const NO_BODY = new Set([204, 205, 304]);

/** `fetch`, then the answer checked against the document; resolves with an equivalent Response. */
export async function checkedFetch(
  input: string | URL | Request,
  init?: RequestInit,
): Promise<Response> {
  const request = new Request(input, init);
  const response = await uncheckedFetch(request);
  const url = new URL(request.url);
  if (isDocsPage(request.method, url.pathname)) return response;
  const bytes = Buffer.from(await response.arrayBuffer());
  checker ??= new AnswerChecker();
  checker.check(
    { method: request.method, url: request.url, headers: Object.fromEntries(request.headers) },
    {
      status: response.status,
      headers: Object.fromEntries(response.headers),
      body: bytes.toString('utf8'),
    },
  );
  return new Response(NO_BODY.has(response.status) || request.method === 'HEAD' ? null : bytes, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

/** Checks an answer another client printed as raw HTTP (`curl -i`) against the document. */
export function checkRawAnswer(method: string, url: string, raw: string): void {
  const split = raw.indexOf('\r\n\r\n');
  const [statusLine, ...lines] = raw.slice(0, split).split('\r\n');
  const headers = Object.fromEntries(
    lines.map((line) => {
      const colon = line.indexOf(':');
      return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()];
    }),
  );
  checker ??= new AnswerChecker();
  checker.check(
    { method, url, headers: {} },
    { status: Number(statusLine!.split(' ')[1]), headers, body: raw.slice(split + 4) },
  );
}
