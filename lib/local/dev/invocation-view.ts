/**
 * The console's view of the recorded entries: a list row, and one entry opened (its request and
 * answer with every Authorization value, token and webhook secret hidden, its log lines as the
 * terminal shows them, its denials in the terminal's words). Built only when a console asks.
 */
import type { Entry } from './invocations';
import { formatLogLine } from './log-format';

/** Header and field names whose values are never shown. */
const SECRET_KEYS = /^(authorization|cookie|set-cookie|identitysource|x-api-key)$|secret/i;
/** Tokens and webhook secrets, wherever they appear in text. */
const SECRET_TEXT = /\b(pst_|whsec_)[\w+/=-]+|\b(Bearer)\s+\S+/g;

/** `value` with every Authorization value, token and webhook secret replaced. */
export function redacted(value: unknown, key = ''): unknown {
  if (SECRET_KEYS.test(key) && value !== undefined && value !== null) return '(hidden)';
  if (typeof value === 'string') {
    return value.replace(SECRET_TEXT, (_, prefix?: string, bearer?: string) =>
      bearer ? `${bearer} (hidden)` : `${prefix}(hidden)`,
    );
  }
  if (Array.isArray(value)) return value.map((item) => redacted(item));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redacted(v, k)]));
  }
  return value;
}

/** A row of the list. */
export function summaryOf(entry: Entry): Record<string, unknown> {
  return {
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
  };
}

/** One entry opened: its request and answer (secrets hidden), its log lines, its denials. */
export function detailOf(entry: Entry): Record<string, unknown> {
  return {
    ...summaryOf(entry),
    initMs: entry.initMs ?? null,
    failure: entry.failure ?? null,
    event: redacted(entry.event ?? null),
    result: redacted(entry.result ?? null),
    requestHeaders: redacted(entry.requestHeaders ?? null),
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
