/**
 * The errors a call throws: one base class, `PlantStoreError`, a class per status a caller may
 * want to `catch` apart, and `ConnectionError` for a call that got no answer. `errorFromAnswer`
 * is the one place an answer becomes an error.
 */
import { versionOf } from './versions.js';

/** What an error carries beside its message. */
export interface ErrorDetails {
  /** The `error` member of the service's answer; the status when the answer had none. */
  readonly error?: number;
  /** True for an answer that is not the service's Error (see `isServiceError`). */
  readonly fromGateway?: boolean;
  /** Seconds from the answer's `Retry-After`. */
  readonly retryAfter?: number;
  /** The answer's headers; empty when no answer came. */
  readonly headers?: Headers;
  /** The underlying failure (a `TypeError` from `fetch`, a `SyntaxError` from a body). */
  readonly cause?: unknown;
}

/** A failed call: what the API answered (or that nothing answered), ready to show or branch on. */
export class PlantStoreError extends Error {
  /** The HTTP status; 0 when no answer came. */
  readonly status: number;
  /**
   * The `error` member of the service's Error answer, which equals the status. The gateway's own
   * answers (`{"message":"Unauthorized"}` and the like) have none: then it is the status too,
   * and `fromGateway` is true.
   */
  readonly error: number;
  /**
   * True for an answer that is not the service's Error (`{error, message}`): the API gateway's
   * own (`{"message":…}`), or a page of a proxy in front of it (an HTML 502).
   */
  readonly fromGateway: boolean;
  /** Seconds to wait before trying again, from the `Retry-After` header, when the answer had one. */
  readonly retryAfter?: number;
  /** The gateway's request id (`apigw-requestid`), to find the request in the logs. */
  readonly requestId?: string;
  /** The answer's headers (empty when no answer came). */
  readonly headers: Headers;

  constructor(status: number, message: string, details: ErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    // The subclass's own name, also after a minifier renamed the class: set per class below.
    this.name = new.target.errorName;
    this.status = status;
    this.error = details.error ?? status;
    this.fromGateway = details.fromGateway ?? false;
    this.headers = details.headers ?? new Headers();
    if (details.retryAfter !== undefined) this.retryAfter = details.retryAfter;
    const requestId = this.headers.get('apigw-requestid');
    if (requestId !== null) this.requestId = requestId;
  }

  /** The `name` of the errors of this class. */
  static errorName = 'PlantStoreError';
}

/** 400: the request is not valid (the message says which member and why). */
export class BadRequestError extends PlantStoreError {
  static override errorName = 'BadRequestError';
}
/** 401: no token was sent. */
export class AuthenticationError extends PlantStoreError {
  static override errorName = 'AuthenticationError';
}
/** 403: the token is unknown, revoked, or lacks the operation's scope. */
export class PermissionDeniedError extends PlantStoreError {
  static override errorName = 'PermissionDeniedError';
}
/** 404: no such plant (or, from the gateway, no such route). */
export class NotFoundError extends PlantStoreError {
  static override errorName = 'NotFoundError';
}
/** 409: the id is taken by a plant with another name or tag. */
export class ConflictError extends PlantStoreError {
  static override errorName = 'ConflictError';
}
/**
 * 412: the plant is not at the version `ifMatch` named, and nothing changed. `currentVersion` is
 * the version it is at (from the answer's `ETag`): read it again, apply the change, send again.
 */
export class PreconditionFailedError extends PlantStoreError {
  static override errorName = 'PreconditionFailedError';
  /** The plant's version now, when the answer said it. */
  readonly currentVersion?: number;

  constructor(status: number, message: string, details: ErrorDetails = {}) {
    super(status, message, details);
    const etag = this.headers.get('etag');
    const version = etag === null ? undefined : versionOf(etag);
    if (version !== undefined) this.currentVersion = version;
  }
}
/** 413: the body is larger than the API accepts. */
export class PayloadTooLargeError extends PlantStoreError {
  static override errorName = 'PayloadTooLargeError';
}
/** 429: too many requests; retried, then thrown. */
export class RateLimitError extends PlantStoreError {
  static override errorName = 'RateLimitError';
}
/** 500 and above: the service or the gateway failed (503: unavailable, retried first). */
export class InternalServerError extends PlantStoreError {
  static override errorName = 'InternalServerError';
}
/** No answer came, on any attempt: refused, reset, unreachable, blocked (CORS). `status` is 0. */
export class ConnectionError extends PlantStoreError {
  static override errorName = 'ConnectionError';
  constructor(message: string, details: ErrorDetails = {}) {
    super(0, message, details);
  }
}
/** Every attempt ran out of its `timeout` before its answer was complete. */
export class ConnectionTimeoutError extends ConnectionError {
  static override errorName = 'ConnectionTimeoutError';
}

const BY_STATUS: Readonly<Record<number, typeof PlantStoreError>> = {
  400: BadRequestError,
  401: AuthenticationError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  412: PreconditionFailedError,
  413: PayloadTooLargeError,
  429: RateLimitError,
};

/** The class of the error for an answer with this status. */
function classFor(status: number): typeof PlantStoreError {
  return BY_STATUS[status] ?? (status >= 500 ? InternalServerError : PlantStoreError);
}

/** An error body as JSON when it is JSON (the service's and the gateway's are), else its text. */
export function parseError(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * Whether a parsed error body is the service's Error (`{error: <integer>, message: <string>}`;
 * a proxy's JSON may have an `error` of its own, a string). The one rule for
 * `fromGateway`: anything else (the gateway's `{"message":…}`, a proxy's HTML) came from in
 * front of the service, for retries and errors alike.
 */
export function isServiceError(body: unknown): boolean {
  if (typeof body !== 'object' || body === null) return false;
  const { error, message } = body as { error?: unknown; message?: unknown };
  return Number.isInteger(error) && typeof message === 'string';
}

/** The error for a non-2xx answer, from its status, headers and body (parsed JSON, or text). */
export function errorFromAnswer(response: Response, body: unknown): PlantStoreError {
  const headers = response.headers;
  const retryAfter = parseRetryAfter(headers.get('retry-after'));
  const { error, message } = (typeof body === 'object' && body !== null ? body : {}) as {
    error?: unknown;
    message?: unknown;
  };
  const Class = classFor(response.status);
  const details = {
    error: typeof error === 'number' ? error : undefined,
    fromGateway: !isServiceError(body),
    retryAfter,
    headers,
  };
  if (typeof message === 'string') return new Class(response.status, message, details);
  return new Class(response.status, `HTTP ${response.status}${excerpt(body)}`, details);
}

/** The most of a body that is not JSON (a proxy's page) that a message shows, in characters. */
const EXCERPT_CHARS = 80;

/**
 * A few words of a body that is not JSON, for a one-line message: an HTML page's title, else its
 * start without tags, whitespace folded, cut at `EXCERPT_CHARS`.
 */
function excerpt(body: unknown): string {
  if (typeof body !== 'string') return '';
  const title = /<title>([^<]*)<\/title>/i.exec(body)?.[1];
  const text = (title ?? body.slice(0, 4 * EXCERPT_CHARS))
    .replace(/<[^<>]*>?/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (text === '') return '';
  const chars = [...text];
  return `: ${chars.length > EXCERPT_CHARS ? `${chars.slice(0, EXCERPT_CHARS).join('')}…` : text}`;
}

/** A 2xx answer whose body is not what the API documents (not JSON, an id that is no int64). */
export function malformedAnswer(response: Response, why: string, cause?: unknown): PlantStoreError {
  return new PlantStoreError(
    response.status,
    `malformed answer (HTTP ${response.status}): ${why}`,
    {
      headers: response.headers,
      cause,
    },
  );
}

/** RFC 9110's IMF-fixdate, the one date form a sender may use: `Sun, 06 Nov 1994 08:49:37 GMT`. */
const IMF_FIXDATE =
  /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;

/** The two obsolete HTTP-date forms a recipient must still read (RFC 9110 section 5.6.7). */
const RFC_850_DATE =
  /^(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), \d{2}-(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)-\d{2} \d{2}:\d{2}:\d{2} GMT$/;
const ASCTIME_DATE =
  /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ \d]\d \d{2}:\d{2}:\d{2} \d{4}$/;

/**
 * `Retry-After` in seconds: delay-seconds (a non-negative integer) or an HTTP-date (0 once past),
 * in any of its three forms (asctime's read as GMT, as it is); anything else (`1.5`, `-1`, a
 * number past what can be counted exactly) is treated as absent, never read by `Date.parse` as
 * some date long past.
 */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  const trimmed = value?.trim() ?? '';
  if (/^\d+$/.test(trimmed)) {
    const seconds = Number(trimmed);
    return Number.isSafeInteger(seconds) ? seconds : undefined;
  }
  let date: number;
  if (IMF_FIXDATE.test(trimmed) || RFC_850_DATE.test(trimmed)) date = Date.parse(trimmed);
  else if (ASCTIME_DATE.test(trimmed)) date = Date.parse(`${trimmed} GMT`);
  else return undefined;
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}
