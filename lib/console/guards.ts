/**
 * What the console refuses: a foreign Host (a page whose DNS name was rebound to 127.0.0.1),
 * another origin (`Origin`, `Sec-Fetch-Site`), and an API call without the console's header or,
 * for an action, without a JSON body: a page of another origin can send neither without a
 * preflight, which the console never answers with CORS headers.
 */
import type { IncomingMessage } from 'node:http';

/** The header the console's own page sends with every API call. */
export const CONSOLE_HEADER = 'x-plant-store-console';

/**
 * Why a request is refused, if it is: a foreign Host (a rebound DNS name), another origin
 * (`Origin`, `Sec-Fetch-Site`), or an API call without the console's header or, for an action,
 * without a JSON body.
 */
export function refusal(
  req: IncomingMessage,
  hosts: readonly string[],
  origins: readonly string[],
  api: boolean,
): string | undefined {
  const host = req.headers.host?.toLowerCase();
  if (host === undefined || !hosts.includes(host)) {
    return `refused Host ${host ?? '(none)'}: the console answers only to Host ${hosts.join(' or ')}`;
  }
  const origin = req.headers.origin;
  if (origin !== undefined && !origins.includes(origin.toLowerCase())) {
    return `refused Origin ${origin}: the console answers only its own page`;
  }
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') {
    return `refused a ${String(site)} request: the console answers only its own page`;
  }
  if (!api) return undefined;
  if (req.headers[CONSOLE_HEADER] !== '1') {
    return `refused: an API call needs the ${CONSOLE_HEADER} header the console's page sends`;
  }
  if (req.method === 'POST' && !/^application\/json\b/i.test(req.headers['content-type'] ?? '')) {
    return 'refused: an action is a JSON body';
  }
  return undefined;
}
