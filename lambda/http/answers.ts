/**
 * One error family and one mapper from errors to HTTP API (payload 2.0) answers.
 * 4xx messages are shown to the caller; 5xx bodies are generic and the details go to the log.
 */
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { stringifyJson } from './json-answer';
import type { Outcome } from '../observability/metrics-contract';
import type { RequestLog } from '../observability/powertools';
import type { ErrorBody } from '../plants/schemas';

/** An answer with a status, a message and optional headers. */
export class HttpError extends Error {
  // Each class names itself: the bundles are minified without esbuild's `keepNames`.
  override readonly name: string = 'HttpError';

  constructor(
    readonly status: number,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }
}

/** 400: the body is not JSON, not an object, or breaks a field rule. */
export class BadRequest extends HttpError {
  override readonly name = 'BadRequest';

  constructor(message: string) {
    super(400, message);
  }
}

/** 403: the caller lacks a scope. */
export class Forbidden extends HttpError {
  override readonly name = 'Forbidden';

  constructor(message: string) {
    super(403, message);
  }
}

/** 404: no plant under the id. */
export class NotFound extends HttpError {
  override readonly name = 'NotFound';

  constructor(message: string) {
    super(404, message);
  }
}

/** 409: the state of the store forbids the request. */
export class Conflict extends HttpError {
  override readonly name = 'Conflict';

  constructor(message: string) {
    super(409, message);
  }
}

/** 412: the plant is not at a version the request's `If-Match` names; the answer tells its version. */
export class PreconditionFailed extends HttpError {
  override readonly name = 'PreconditionFailed';

  constructor(message: string, etag: string) {
    super(412, message, { etag });
  }
}

/** 413: the body is too large. */
export class PayloadTooLarge extends HttpError {
  override readonly name = 'PayloadTooLarge';

  constructor(message: string) {
    super(413, message);
  }
}

/** 415: the body's media type is not accepted (PATCH says which it takes in `Accept-Patch`). */
export class UnsupportedMediaType extends HttpError {
  override readonly name = 'UnsupportedMediaType';

  constructor(message: string, headers: Readonly<Record<string, string>> = {}) {
    super(415, message, headers);
  }
}

/** Seconds a client should wait before retrying after a 503. */
export const RETRY_AFTER_SECONDS = 1;

/** 503: a dependency is throttled or unreachable; the request may be retried. */
export class ServiceUnavailable extends HttpError {
  override readonly name = 'ServiceUnavailable';

  constructor(
    message: string,
    options?: { readonly cause?: unknown; readonly retryAfterSeconds?: number },
  ) {
    super(503, message, {
      'retry-after': String(options?.retryAfterSeconds ?? RETRY_AFTER_SECONDS),
    });
    if (options) this.cause = options.cause;
  }
}

/** Generic messages for the 5xx answers, which never show internals (also the document's examples). */
export const SERVER_MESSAGES: Readonly<Record<number, string>> = {
  500: 'internal error; the request id identifies it in the service log',
  503: 'the store is unavailable; retry after the number of seconds in Retry-After',
};

/** A JSON answer; `bigint` ids are written with every digit. */
export function jsonResponse(
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): APIGatewayProxyStructuredResultV2 {
  return {
    statusCode: status,
    headers: { 'content-type': 'application/json', ...headers },
    body: stringifyJson(body),
  };
}

/** An answer without a body (204, 304). */
export function emptyResponse(
  status: number,
  headers?: Readonly<Record<string, string>>,
): APIGatewayProxyStructuredResultV2 {
  return headers ? { statusCode: status, headers } : { statusCode: status };
}

/** The outcome a status stands for in the request's log line and metrics. */
function outcomeOf(status: number): Outcome {
  if (status === 403) return 'forbidden';
  if (status === 404) return 'not-found';
  if (status === 409) return 'conflict';
  if (status === 412) return 'precondition-failed';
  if (status === 503) return 'unavailable';
  return status < 500 ? 'invalid' : 'error';
}

/**
 * Maps any thrown value to an Error answer and records the request's outcome. An `HttpError`
 * below 500 shows its message (logged as the broken rule); everything else answers generically
 * and its details are logged with the request id.
 */
export function errorResponse(error: unknown, log: RequestLog): APIGatewayProxyStructuredResultV2 {
  const status = error instanceof HttpError ? error.status : 500;
  const outcome = outcomeOf(status);
  if (status >= 500) log.outcome(outcome, { error });
  else if (outcome === 'invalid') log.outcome(outcome, { rule: (error as HttpError).message });
  else log.outcome(outcome);
  const message =
    status < 500 && error instanceof HttpError
      ? error.message
      : (SERVER_MESSAGES[status] ?? SERVER_MESSAGES[500]!);
  const body: ErrorBody = { error: status, message };
  return jsonResponse(status, body, error instanceof HttpError ? error.headers : {});
}
