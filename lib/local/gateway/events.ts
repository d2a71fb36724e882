/**
 * The payload 2.0 events: the parts the authorizer's REQUEST event and the integration event
 * share, built before the body is read, and the integration's body fields.
 */
import type { IncomingMessage } from 'node:http';
import { randomText } from '../process/random-ids';
import type { RouteMatch } from './router';

/** The request target as sent: the path and the query string without its `?`. */
export interface Target {
  readonly rawPath: string;
  readonly rawQueryString: string;
}

/** Splits a request target without normalizing it (no dot-segment removal, no re-encoding). */
export function splitTarget(url: string): Target {
  let target = url;
  if (!target.startsWith('/')) {
    // Absolute form (`GET http://host/path`), as a proxy would send it.
    try {
      const parsed = new URL(target);
      target = parsed.pathname + parsed.search;
    } catch {
      return { rawPath: target, rawQueryString: '' };
    }
  }
  const question = target.indexOf('?');
  return question < 0
    ? { rawPath: target, rawQueryString: '' }
    : { rawPath: target.slice(0, question), rawQueryString: target.slice(question + 1) };
}

/** The parts of a request that both events share. */
export interface RequestParts {
  readonly rawPath: string;
  readonly headers: Readonly<Record<string, string>>;
  /** routeKey, rawPath, rawQueryString, cookies, headers, queryStringParameters, pathParameters. */
  readonly common: Readonly<Record<string, unknown>>;
  readonly requestContext: Readonly<Record<string, unknown>>;
}

/** Describes a routed request as payload 2.0 delivers it (everything but the body). */
export function describeRequest(
  req: IncomingMessage,
  target: Target,
  { route, pathParameters }: RouteMatch,
  requestId: string,
  now: number,
): RequestParts {
  // Without a prototype: a header or parameter named `toString` or `constructor` is a name like
  // any other, not the inherited function (`name in headers` would find it).
  const headers: Record<string, string> = Object.create(null) as Record<string, string>;
  const cookies: string[] = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i]!.toLowerCase();
    const value = req.rawHeaders[i + 1]!;
    if (name === 'cookie') {
      cookies.push(
        ...value
          .split(';')
          .map((c) => c.trim())
          .filter(Boolean),
      );
      continue;
    }
    headers[name] = name in headers ? `${headers[name]},${value}` : value;
  }
  const { rawPath, rawQueryString } = target;
  const query: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [key, value] of new URLSearchParams(rawQueryString))
    query[key] = key in query ? `${query[key]},${value}` : value;
  const routeKey = `${route.method} ${route.path}`;
  const host = headers.host ?? 'localhost';
  const common = {
    routeKey,
    rawPath,
    rawQueryString,
    ...(cookies.length ? { cookies } : {}),
    headers,
    ...(Object.keys(query).length ? { queryStringParameters: query } : {}),
    ...(pathParameters ? { pathParameters } : {}),
  };
  const requestContext = {
    accountId: '000000000000',
    apiId: 'local',
    domainName: host,
    domainPrefix: host.split('.')[0]!.split(':')[0],
    http: {
      method: route.method,
      path: rawPath,
      protocol: `HTTP/${req.httpVersion}`,
      sourceIp: req.socket.remoteAddress?.replace(/^::ffff:/, '') ?? '127.0.0.1',
      userAgent: headers['user-agent'] ?? '',
    },
    requestId,
    routeKey,
    stage: '$default',
    time: formatTime(new Date(now)),
    timeEpoch: now,
  };
  return { rawPath, headers, common, requestContext };
}

/** Bodies of these media types reach the function as text; all others as base64. [seen] */
const TEXT_MEDIA = /^(?:text\/|application\/(?:json|xml|javascript)\s*(?:;|$))/i;

/** The integration event's `body` (left out when empty) and `isBase64Encoded`. */
export function payloadOf(
  body: Buffer,
  contentType: string | undefined,
): { body?: string; isBase64Encoded: boolean } {
  if (body.length === 0) return { isBase64Encoded: false };
  const text = TEXT_MEDIA.test(contentType ?? '');
  return { body: text ? body.toString('utf8') : body.toString('base64'), isBase64Encoded: !text };
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** "17/Jun/2024:15:52:39 +0000", as `requestContext.time`. */
function formatTime(date: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${p(date.getUTCDate())}/${MONTHS[date.getUTCMonth()]}/${date.getUTCFullYear()}:${p(date.getUTCHours())}:${p(date.getUTCMinutes())}:${p(date.getUTCSeconds())} +0000`;
}

/** An id shaped like API Gateway's (`ZqwS2gQ6DoEEMhw=`). */
export function newRequestId(): string {
  return `${randomText(10, 'base64').slice(0, 14)}=`;
}
