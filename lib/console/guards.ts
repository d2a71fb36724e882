/**
 * What the console refuses: a foreign Host (a page whose DNS name was rebound to 127.0.0.1),
 * another origin (`Origin`, `Sec-Fetch-Site`), an API call without this run's key in the
 * console's header and, for an action, without a JSON body. The browser checks stop other web
 * pages; the key stops another user of the machine, who can reach 127.0.0.1 but can read neither
 * the URL `npm start` printed nor the private data directory that also keeps it.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** The header the console's own page sends with every API call: this run's key. */
export const CONSOLE_HEADER = 'x-plant-store-console';

/** Whom the console answers. */
export interface Allowed {
  /** `Host` values: the console's own (`127.0.0.1:<port>`). */
  readonly hosts: readonly string[];
  /** `Origin` values: the console's own page. */
  readonly origins: readonly string[];
  /** This run's key, which every API call carries in `CONSOLE_HEADER`. */
  readonly key: string;
}

/** A new console key: 32 random bytes, base64url (43 characters). */
export function makeConsoleKey(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * Whether `given` (a header's value) is `key`, compared in constant time. A missing value, one
 * of another length and an empty key are never a match, and never throw.
 */
export function isConsoleKey(given: string | string[] | undefined, key: string): boolean {
  if (typeof given !== 'string' || key === '') return false;
  const a = Buffer.from(given, 'utf8');
  const b = Buffer.from(key, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Why a request is refused, if it is: a foreign Host (a rebound DNS name), another origin
 * (`Origin`, `Sec-Fetch-Site`), or an API call without this run's key in the console's header
 * or, for an action, without a JSON body.
 */
export function refusal(req: IncomingMessage, allowed: Allowed, api: boolean): string | undefined {
  const { hosts, origins } = allowed;
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
  if (!isConsoleKey(req.headers[CONSOLE_HEADER], allowed.key)) {
    return `refused: an API call needs this run's key in the ${CONSOLE_HEADER} header (open the console URL npm start printed)`;
  }
  if (req.method === 'POST' && !/^application\/json\b/i.test(req.headers['content-type'] ?? '')) {
    return 'refused: an action is a JSON body';
  }
  return undefined;
}
