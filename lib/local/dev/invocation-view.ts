/**
 * The console's view of the recorded entries: a list row, and one entry opened (its request and
 * answer with every Authorization value, token and webhook secret hidden, its log lines as the
 * terminal shows them, its denials in the terminal's words). Built only when a console asks.
 */
import type { Entry } from './invocations';
import { formatLogLine } from './log-format';

/** Field names whose values are never shown, wherever they appear. */
const SECRET_KEYS =
  /^(authorization|proxy-authorization|cookies?|set-cookie|identitysource|x-api-key|x-amz-security-token)$|secret/i;
/**
 * Header and query parameter names whose values are never shown: any name that says it carries
 * a credential. Applied only to headers and query parameters, where the caller chose the names;
 * elsewhere (a token list's `tokenId`, an authorizer's context) such a name is no secret.
 */
const SECRET_NAMES =
  /authorization|token|secret|cookie|api[-_]?key|passw|signature|credential|^(key|sig)$/i;
/** The members whose own members are headers or query parameters, named by the caller. */
const CALLER_NAMED =
  /^(headers|multiValueHeaders|requestHeaders|queryStringParameters|multiValueQueryStringParameters)$/i;
/**
 * Tokens and webhook secrets, wherever they appear in text: after any character (a `%20` or a
 * `\u0020` ends in a word character), percent-escapes within them taken too, and a bearer
 * credential after a space however it is written (` `, `+`, `%20`).
 */
const SECRET_TEXT = /(pst_|whsec_)[\w+/=%-]+|\b(bearer)(?:\s|\+|%20)+[^\s&"]+/gi;

/**
 * `value` with every Authorization value, token and webhook secret replaced: the value of a
 * secret field, header or query parameter (in `rawQueryString` and a `path`'s query too), and
 * a token or secret in any text.
 */
export function redacted(value: unknown, key = '', hidden: RegExp = SECRET_KEYS): unknown {
  if (hidden.test(key) && value !== undefined && value !== null) return '(hidden)';
  if (typeof value === 'string') {
    if (key === 'rawQueryString') return redactedQuery(value);
    if (key === 'path') return redactedPath(value);
    return redactedText(value);
  }
  if (Array.isArray(value)) return value.map((item) => redacted(item));
  if (value && typeof value === 'object') {
    const names = CALLER_NAMED.test(key) ? SECRET_NAMES : SECRET_KEYS;
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redacted(v, k, names)]));
  }
  return value;
}

function redactedText(text: string): string {
  return text.replace(SECRET_TEXT, (_, prefix?: string, bearer?: string) =>
    bearer ? `${bearer} (hidden)` : `${prefix}(hidden)`,
  );
}

/** A path, its query's secret values hidden. */
function redactedPath(path: string): string {
  const at = path.indexOf('?');
  if (at < 0) return redactedText(path);
  return `${redactedText(path.slice(0, at))}?${redactedQuery(path.slice(at + 1))}`;
}

/** A raw query string, each parameter whose (decoded) name says it is a secret hidden. */
function redactedQuery(query: string): string {
  return query
    .split('&')
    .map((pair) => {
      const at = pair.indexOf('=');
      const name = at < 0 ? pair : pair.slice(0, at);
      return at >= 0 && SECRET_NAMES.test(decodedName(name))
        ? `${name}=(hidden)`
        : redactedText(pair);
    })
    .join('&');
}

function decodedName(name: string): string {
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    return name;
  }
}

/** A row of the list, secrets hidden. */
export function summaryOf(entry: Entry): Record<string, unknown> {
  return redacted({
    seq: entry.seq,
    time: entry.time,
    kind: entry.kind,
    functionName: entry.functionName ?? null,
    source: entry.source,
    path: entry.path ?? null,
    status: entry.status ?? null,
    durationMs: entry.durationMs ?? null,
    cold: entry.cold ?? null,
    maxMemoryMb: entry.maxMemoryMb ?? null,
    requestId: entry.requestId ?? null,
    lambdaRequestId: entry.lambdaRequestId ?? null,
    ended: entry.ended,
    denied: entry.denials.length > 0,
  }) as Record<string, unknown>;
}

/** One entry opened: its request and answer (secrets hidden), its log lines, its denials. */
export function detailOf(entry: Entry): Record<string, unknown> {
  return {
    ...summaryOf(entry),
    initMs: entry.initMs ?? null,
    failure: entry.failure ?? null,
    event: redacted(entry.event ?? null),
    result: redacted(entry.result ?? null),
    requestHeaders: redacted(entry.requestHeaders ?? null, 'requestHeaders'),
    response: redacted(entry.response ?? null),
    lines: entry.lines.map((line) => {
      const shown = formatLogLine(entry.functionName ?? '', line, { metrics: true });
      return redacted(shown === undefined ? line : shown.replace(/^\[[^\]]*\] /, ''));
    }),
    denials: entry.denials.map((d) => ({
      line: `[iam] denied: ${d.functionName} may not ${d.action} on ${d.resource}`,
      hint: `[iam] ${d.hint}`,
      action: d.action,
      resource: d.resource,
    })),
    deniedMore: entry.deniedMore ?? 0,
  };
}
