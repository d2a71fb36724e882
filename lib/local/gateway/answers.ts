/**
 * What the gateway answers on its own (API Gateway's JSON messages), and how it reads a
 * function's or an authorizer's answer (payload format 2.0).
 */

/** A gateway's answer before it is written. */
export interface Answer {
  status: number;
  headers: Record<string, string>;
  cookies?: string[];
  body: Buffer;
}

/** An answer with API Gateway's `{"message": ...}` body. */
export const message = (status: number, text: string): Answer => ({
  status,
  headers: { 'content-type': 'application/json' },
  body: Buffer.from(JSON.stringify({ message: text })),
});

/** API Gateway's own answers, by name. */
export const ANSWERS = {
  unauthorized: () => message(401, 'Unauthorized'),
  forbidden: () => message(403, 'Forbidden'),
  notFound: () => message(404, 'Not Found'),
  tooLarge: () => message(413, 'Request Entity Too Large'),
  tooManyRequests: () => message(429, 'Too Many Requests'),
  headersTooLarge: () => message(431, 'Request Header Fields Too Large'),
  internal: () => message(500, 'Internal Server Error'),
  unavailable: () => message(503, 'Service Unavailable'),
} as const;

/** An authorizer's decision: a denial, or the context to pass on. */
export type Decision = 'deny' | { readonly context: Record<string, unknown> | null };

/** A simple response is `{isAuthorized: boolean, context?: object}`; anything else is malformed. */
export function readAuthorizerAnswer(result: unknown): Decision | 'error' {
  if (
    typeof result !== 'object' ||
    result === null ||
    typeof (result as { isAuthorized?: unknown }).isAuthorized !== 'boolean'
  ) {
    return 'error';
  }
  const { isAuthorized, context } = result as { isAuthorized: boolean; context?: unknown };
  if (!isAuthorized) return 'deny';
  if (context === undefined || context === null) return { context: null };
  if (typeof context !== 'object' || Array.isArray(context)) return 'error';
  return { context: context as Record<string, unknown> };
}

/** Maps a payload 2.0 answer to HTTP, or `undefined` when it is malformed. [doc] */
export function mapFunctionAnswer(result: unknown): Answer | undefined {
  const isObject = typeof result === 'object' && result !== null && !Array.isArray(result);
  if (!isObject || !('statusCode' in result)) {
    // No statusCode: the value itself is the JSON body of a 200.
    const body = typeof result === 'string' ? result : JSON.stringify(result ?? null);
    return {
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: Buffer.from(body),
    };
  }
  const answer = result as {
    statusCode: unknown;
    headers?: unknown;
    body?: unknown;
    isBase64Encoded?: unknown;
    cookies?: unknown;
  };
  const status = answer.statusCode;
  if (typeof status !== 'number' || !Number.isInteger(status) || status < 100 || status > 599)
    return undefined;
  // No prototype: a header named `__proto__` is a header, not the object's prototype.
  const headers: Record<string, string> = Object.create(null) as Record<string, string>;
  if (answer.headers !== undefined) {
    if (typeof answer.headers !== 'object' || answer.headers === null) return undefined;
    for (const [name, value] of Object.entries(answer.headers)) {
      if (!['string', 'number', 'boolean'].includes(typeof value)) return undefined;
      headers[name.toLowerCase()] = String(value);
    }
  }
  if (answer.body !== undefined && typeof answer.body !== 'string') return undefined;
  if (
    answer.cookies !== undefined &&
    (!Array.isArray(answer.cookies) || answer.cookies.some((c) => typeof c !== 'string'))
  ) {
    return undefined;
  }
  const text = answer.body ?? '';
  const body = answer.isBase64Encoded === true ? Buffer.from(text, 'base64') : Buffer.from(text);
  return { status, headers, cookies: answer.cookies as string[] | undefined, body };
}
