/**
 * What the local console shows: every invocation of every function (its event, answer, REPORT
 * figures and log lines), the gateway's requests that invoked no function, and IAM's denials,
 * each pinned to the invocation that made the call. A ring of the last `capacity` entries, and
 * of `budget` characters in all (bodies, lines and denials, each entry's clipped first): older
 * ones are dropped, and nothing is copied or serialized until a console asks (recording is a
 * few field writes per invocation).
 */
import type { AnsweredRequest } from '../gateway/server';
import { grantHint, type Denial } from '../iam/grant-hint';
import type { InvocationEnd, InvocationObserver } from '../lambda/report';

/** Entries kept: past it, the oldest goes. */
export const DEFAULT_CAPACITY = 500;
/** Characters kept in all entries (about twice as many bytes): past it, the oldest go. */
export const DEFAULT_BUDGET_CHARS = 32 * 1024 * 1024;
/** Lines kept per invocation, characters per line, and characters of all its lines. */
const MAX_LINES = 200;
const MAX_LINE_CHARS = 8_192;
const MAX_LINES_CHARS = 65_536;
/** Characters of a body kept (a request, an answer, each record of a batch). */
const MAX_BODY_CHARS = 16_384;
/** Denials kept per entry (the count of the others is kept). */
export const MAX_DENIALS = 20;
/** What an entry's fields other than bodies and lines are counted as. */
const FIELDS_CHARS = 1_024;

/** One row of the console. */
export interface Entry {
  readonly seq: number;
  readonly time: string;
  /** `invocation` of a function, or a gateway `request` that invoked none. */
  readonly kind: 'invocation' | 'request';
  readonly functionName?: string;
  /** `POST /plants` (the route), `stream plants`, `queue plant-store-deliveries`. */
  source: string;
  /** The request's path and query, for HTTP. */
  readonly path?: string;
  /** The gateway's request id (`apigw-requestid`), for HTTP. */
  readonly requestId?: string;
  /** Lambda's request id of the invocation. */
  readonly lambdaRequestId?: string;
  status?: number | string;
  durationMs?: number;
  cold?: boolean;
  initMs?: number;
  maxMemoryMb?: number;
  ended: boolean;
  readonly event?: unknown;
  result?: unknown;
  failure?: string;
  response?: { status: number; headers: Record<string, string | string[]>; body: string };
  requestHeaders?: Record<string, unknown>;
  readonly lines: string[];
  readonly denials: (Denial & { hint: string })[];
  /** Denials past `MAX_DENIALS`, not kept. */
  deniedMore?: number;
}

/** The ring of entries, fed by the pools, the gateway and the access gate. */
export class Invocations {
  private readonly ring: Entry[] = [];
  private seq = 0;
  /** Invocations in flight, by Lambda request id. */
  private readonly running = new Map<string, Entry>();
  /** HTTP integrations not yet answered, by the gateway's request id. */
  private readonly integrations = new Map<string, Entry>();
  private changes = 0;
  /** The characters each kept entry is counted as, and their sum. */
  private readonly sizes = new WeakMap<Entry, number>();
  private chars = 0;

  constructor(
    private readonly capacity = DEFAULT_CAPACITY,
    private readonly budget = DEFAULT_BUDGET_CHARS,
  ) {}

  /** The observer of one function's pool. */
  observer(functionName: string): InvocationObserver {
    return {
      started: (lambdaRequestId, event) => this.started(functionName, lambdaRequestId, event),
      line: (lambdaRequestId, line) => {
        const entry = this.running.get(lambdaRequestId);
        if (!entry || entry.lines.length >= MAX_LINES) return;
        const kept = line.slice(0, MAX_LINE_CHARS);
        const used = entry.lines.reduce((sum, l) => sum + l.length, 0);
        if (used + kept.length > MAX_LINES_CHARS) return;
        entry.lines.push(kept);
        this.grow(entry, kept.length);
      },
      ended: (lambdaRequestId, end) => this.ended(lambdaRequestId, end),
    };
  }

  /** The gateway's `onAnswered`. */
  readonly answered = (answered: AnsweredRequest): void => {
    // Only the kept bytes are decoded.
    const bytes = answered.responseBody;
    const response = {
      status: answered.status,
      headers: { ...answered.responseHeaders },
      body:
        bytes.length > MAX_BODY_CHARS
          ? `${bytes.subarray(0, MAX_BODY_CHARS).toString('utf8')}… (${bytes.length} bytes)`
          : bytes.toString('utf8'),
    };
    const integration = this.integrations.get(answered.requestId);
    if (integration) {
      this.integrations.delete(answered.requestId);
      integration.status = answered.status;
      integration.response = response;
      integration.requestHeaders = { ...answered.requestHeaders };
      this.grow(integration, response.body.length + FIELDS_CHARS);
      this.changed();
      return;
    }
    const entry = this.add({
      kind: 'request',
      source: `${answered.method} ${answered.url.split('?')[0]}`,
      path: answered.url,
      requestId: answered.requestId,
      status: answered.status,
      durationMs: answered.ms,
      ended: true,
    });
    entry.response = response;
    entry.requestHeaders = { ...answered.requestHeaders };
    this.grow(entry, response.body.length + FIELDS_CHARS);
  };

  /** The access gate's `onDenied`: pinned to the function's invocations in flight. */
  readonly denied = (denial: Denial): void => {
    const shown = { ...denial, hint: grantHint(denial) };
    let pinned = false;
    for (const entry of this.running.values()) {
      if (entry.functionName !== denial.functionName) continue;
      this.pin(entry, shown);
      pinned = true;
      this.changed();
    }
    if (!pinned) {
      const entry = this.add({
        kind: 'invocation',
        functionName: denial.functionName,
        source: '(no invocation in flight)',
        status: 'denied',
        ended: true,
      });
      this.pin(entry, shown);
      this.changed();
    }
  };

  /** Keeps a denial on `entry`, up to `MAX_DENIALS`; past it, only counted. */
  private pin(entry: Entry, denial: Entry['denials'][number]): void {
    if (entry.denials.length >= MAX_DENIALS) {
      entry.deniedMore = (entry.deniedMore ?? 0) + 1;
      return;
    }
    entry.denials.push(denial);
    this.grow(entry, FIELDS_CHARS);
  }

  /** The entries kept, newest first. */
  list(): readonly Entry[] {
    return [...this.ring].reverse();
  }

  /** One entry by its number, while it is kept. */
  get(seq: number): Entry | undefined {
    return this.ring.find((entry) => entry.seq === seq);
  }

  /** Counts every entry added or changed: a console asks again only when it has moved. */
  get version(): number {
    return this.changes;
  }

  private started(functionName: string, lambdaRequestId: string, event: unknown): void {
    const http = httpOf(event);
    const entry = this.add({
      kind: 'invocation',
      functionName,
      source: sourceOf(event),
      path: http?.path,
      requestId: http?.requestId,
      lambdaRequestId,
      ended: false,
      event: clipped(event),
    });
    this.running.set(lambdaRequestId, entry);
    this.grow(entry, bodyChars(entry.event));
    // An integration's status is the gateway's answer: kept until it is sent.
    if (http?.requestId && !http.authorizer) this.integrations.set(http.requestId, entry);
  }

  private ended(lambdaRequestId: string, end: InvocationEnd): void {
    const entry = this.running.get(lambdaRequestId);
    if (!entry) return;
    this.running.delete(lambdaRequestId);
    entry.ended = true;
    entry.durationMs = end.measured.durationMs;
    entry.maxMemoryMb = end.measured.maxMemoryMb;
    entry.cold = end.cold;
    entry.initMs = end.initMs;
    entry.failure = end.failure;
    entry.result = clipped(end.result);
    entry.status ??= statusOf(end);
    this.grow(entry, bodyChars(entry.result) + (end.failure?.length ?? 0));
    this.changed();
  }

  private add(fields: Omit<Entry, 'seq' | 'time' | 'lines' | 'denials'>): Entry {
    const entry: Entry = {
      seq: ++this.seq,
      time: new Date().toISOString(),
      lines: [],
      denials: [],
      ...fields,
    };
    this.ring.push(entry);
    this.sizes.set(entry, 0);
    this.grow(entry, FIELDS_CHARS);
    if (this.ring.length > this.capacity) this.dropOldest();
    this.changed();
    return entry;
  }

  /** `entry` now holds `chars` more: the oldest entries go while the ring is over budget. */
  private grow(entry: Entry, chars: number): void {
    if (!this.sizes.has(entry)) return;
    this.sizes.set(entry, this.sizes.get(entry)! + chars);
    this.chars += chars;
    // The newest entry stays, whatever its size (each entry is clipped first).
    while (this.chars > this.budget && this.ring.length > 1) this.dropOldest();
  }

  private dropOldest(): void {
    const gone = this.ring.shift()!;
    this.chars -= this.sizes.get(gone) ?? 0;
    this.sizes.delete(gone);
    if (gone.lambdaRequestId) this.running.delete(gone.lambdaRequestId);
    if (gone.requestId) this.integrations.delete(gone.requestId);
  }

  /** An entry was added or changed: a console polling for changes asks for the list again. */
  private changed(): void {
    this.changes += 1;
  }
}

/** The HTTP side of an API Gateway event (an authorizer's or an integration's). */
function httpOf(
  event: unknown,
): { path: string; requestId?: string; authorizer: boolean } | undefined {
  const e = event as {
    type?: string;
    rawPath?: string;
    rawQueryString?: string;
    requestContext?: { requestId?: string };
  } | null;
  if (typeof e?.rawPath !== 'string') return undefined;
  return {
    path: e.rawQueryString ? `${e.rawPath}?${e.rawQueryString}` : e.rawPath,
    requestId: e.requestContext?.requestId,
    authorizer: e.type === 'REQUEST',
  };
}

/** The route, or the stream or queue a batch came from. */
function sourceOf(event: unknown): string {
  const e = event as {
    routeKey?: string;
    Records?: { eventSource?: string; eventSourceARN?: string }[];
  } | null;
  if (typeof e?.routeKey === 'string') return e.routeKey;
  const record = e?.Records?.[0];
  const arn = record?.eventSourceARN ?? '';
  if (record?.eventSource === 'aws:dynamodb') {
    return `stream ${/table\/([^/]+)/.exec(arn)?.[1] ?? arn}`;
  }
  if (record?.eventSource === 'aws:sqs') return `queue ${arn.split(':').at(-1)}`;
  return '(direct)';
}

/** What an invocation's status column says when no gateway answer says it. */
function statusOf(end: InvocationEnd): number | string {
  if (end.failure) return end.failure;
  const result = end.result as {
    statusCode?: unknown;
    isAuthorized?: unknown;
    batchItemFailures?: unknown[];
  } | null;
  if (typeof result?.statusCode === 'number') return result.statusCode;
  if (typeof result?.isAuthorized === 'boolean') return result.isAuthorized ? 'allow' : 'deny';
  if (Array.isArray(result?.batchItemFailures)) {
    return result.batchItemFailures.length === 0
      ? 'ok'
      : `${result.batchItemFailures.length} failed`;
  }
  return 'ok';
}

/** The characters of `value`'s clipped bodies (its own and its records'), and its fields. */
function bodyChars(value: unknown): number {
  const v = value as { body?: unknown; Records?: unknown } | null;
  let chars = FIELDS_CHARS + (typeof v?.body === 'string' ? v.body.length : 0);
  if (Array.isArray(v?.Records)) for (const record of v.Records) chars += bodyChars(record);
  return chars;
}

function clip(text: string): string {
  return text.length > MAX_BODY_CHARS
    ? `${text.slice(0, MAX_BODY_CHARS)}… (${text.length} characters)`
    : text;
}

/**
 * An event or answer as kept: its `body`, or each of its records' (a queue's batch), clipped
 * when long; nothing is copied otherwise.
 */
function clipped(value: unknown): unknown {
  const records = (value as { Records?: unknown } | null)?.Records;
  if (Array.isArray(records) && records.some((record) => clipped(record) !== record)) {
    return { ...(value as object), Records: records.map(clipped) };
  }
  const body = (value as { body?: unknown } | null)?.body;
  if (typeof body !== 'string' || body.length <= MAX_BODY_CHARS) return value;
  return { ...(value as object), body: clip(body) };
}
