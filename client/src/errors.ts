/** A failed call: what the API answered (or that nothing answered), ready to show or branch on. */
export class PlantStoreError extends Error {
  override readonly name = 'PlantStoreError';
  /** The HTTP status; 0 when no answer came (the network failed on every attempt). */
  readonly status: number;
  /**
   * The `error` member of the service's Error answer, which equals the status. The gateway's own
   * answers (`{"message":"Unauthorized"}` and the like) have none: then it is the status too,
   * and `fromGateway` is true.
   */
  readonly error: number;
  /** True for an answer of the API gateway itself (`{"message":…}` without `error`). */
  readonly fromGateway: boolean;
  /** Seconds to wait before trying again, from the `Retry-After` header, when the answer had one. */
  readonly retryAfter?: number;
  /** The gateway's request id (`apigw-requestid`), to find the request in the logs. */
  readonly requestId?: string;

  constructor(
    status: number,
    message: string,
    details: {
      error?: number;
      fromGateway?: boolean;
      retryAfter?: number;
      requestId?: string;
      cause?: unknown;
    } = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.status = status;
    this.error = details.error ?? status;
    this.fromGateway = details.fromGateway ?? false;
    if (details.retryAfter !== undefined) this.retryAfter = details.retryAfter;
    if (details.requestId !== undefined) this.requestId = details.requestId;
  }
}

/** The error for a non-2xx answer, from its status, headers and body text. */
export function errorFromAnswer(response: Response, body: unknown): PlantStoreError {
  const retryAfter = parseRetryAfter(response.headers.get('retry-after'));
  const requestId = response.headers.get('apigw-requestid') ?? undefined;
  const { error, message } = (typeof body === 'object' && body !== null ? body : {}) as {
    error?: unknown;
    message?: unknown;
  };
  if (typeof message === 'string') {
    return new PlantStoreError(response.status, message, {
      error: typeof error === 'number' ? error : undefined,
      fromGateway: error === undefined,
      retryAfter,
      requestId,
    });
  }
  const text = typeof body === 'string' && body ? `: ${body.slice(0, 200)}` : '';
  return new PlantStoreError(response.status, `HTTP ${response.status}${text}`, {
    retryAfter,
    requestId,
  });
}

/** `Retry-After` in seconds: either form of RFC 9110 (delay-seconds or an HTTP date). */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null) return undefined;
  if (/^\s*\d+\s*$/.test(value)) return Number(value);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}
