/**
 * An HTTP server that answers as API Gateway's HTTP API does (`../shared/GATEWAY.md`), serving
 * the shared API definition: routing, CORS, the Lambda authorizer and its decision cache, the
 * payload 2.0 events, and the mapping of a function's answer to HTTP.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ApiDefinition, RouteDefinition } from '../api';
import type { FunctionName } from '../functions';
import { Router, type RouteMatch } from './gateway/router';

/**
 * Pages the local runtime serves beside the emulated API (the API reference): asked first for
 * every request; an answer is sent as it is, without routing or authorizer. Not deployed.
 */
export type LocalPages = (method: string, pathname: string) => Promise<Answer | undefined>;

/** Invokes a function; rejects when it fails, times out or crashes. */
export type Invoke = (name: FunctionName, event: unknown) => Promise<unknown>;

/** How the gateway runs. */
export interface GatewayOptions {
  readonly api: ApiDefinition;
  readonly invoke: Invoke;
  /** Seconds a decision is cached per Authorization value; 0 turns caching off. */
  readonly authCacheTtlSeconds: number;
  /** Allowed CORS origins. @default - the definition's default */
  readonly corsAllowOrigins?: readonly string[];
  /** Receives one line per request. */
  readonly log: (line: string) => void;
  /** The clock, for the cache. @default Date.now */
  readonly now?: () => number;
  /** Local-only pages. @default - none */
  readonly localPages?: LocalPages;
}

/** A gateway's answer before it is written. */
export interface Answer {
  status: number;
  headers: Record<string, string>;
  cookies?: string[];
  body: Buffer;
}

/** Bodies of these media types reach the function as text; all others as base64. [seen] */
const TEXT_MEDIA = /^(text\/[^;]*|application\/(json|xml|javascript))\s*(;|$)/i;

const message = (status: number, text: string): Answer => ({
  status,
  headers: { 'content-type': 'application/json' },
  body: Buffer.from(JSON.stringify({ message: text })),
});
const UNAUTHORIZED = () => message(401, 'Unauthorized');
const FORBIDDEN = () => message(403, 'Forbidden');
const NOT_FOUND = () => message(404, 'Not Found');
const TOO_LARGE = () => message(413, 'Request Entity Too Large');
const INTERNAL = () => message(500, 'Internal Server Error');
const UNAVAILABLE = () => message(503, 'Service Unavailable');

/** The local HTTP API. */
export class Gateway {
  /** Decisions by `Authorization` value; failures are never cached. */
  private readonly cache = new Map<string, { expires: number; decision: Decision }>();
  private readonly now: () => number;
  private readonly origins: readonly string[];
  private readonly router: Router;
  private server: Server | undefined;

  constructor(private readonly options: GatewayOptions) {
    this.now = options.now ?? Date.now;
    this.origins = options.corsAllowOrigins ?? options.api.cors.defaultAllowOrigins;
    this.router = new Router(options.api.routes);
  }

  /** Listens on 127.0.0.1:`port` (0: a free port) and returns the port. */
  async listen(port: number): Promise<number> {
    const server = createServer((req, res) => void this.serve(req, res));
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    return (server.address() as AddressInfo).port;
  }

  /** Stops accepting requests and waits for those in flight. */
  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
    });
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = performance.now();
    const requestId = newRequestId();
    let answer: Answer;
    try {
      answer = await this.answer(req, requestId);
    } catch (error) {
      this.options.log(`gateway error ${requestId}: ${String(error)}`);
      answer = INTERNAL();
    }
    const headers: Record<string, string | string[]> = {
      ...answer.headers,
      ...this.corsHeaders(req),
      'apigw-requestid': requestId,
      'content-length': String(answer.body.length),
    };
    if (answer.cookies?.length) headers['set-cookie'] = answer.cookies;
    res.writeHead(answer.status, headers);
    res.end(answer.body);
    const ms = (performance.now() - started).toFixed(1);
    this.options.log(`${req.method} ${req.url} ${answer.status} ${ms}ms ${requestId}`);
  }

  private async answer(req: IncomingMessage, requestId: string): Promise<Answer> {
    const target = splitTarget(req.url ?? '/');
    const method = (req.method ?? 'GET').toUpperCase();
    const page = await this.options.localPages?.(method, target.rawPath);
    if (page) {
      await drain(req);
      return page;
    }
    if (
      method === 'OPTIONS' &&
      req.headers.origin &&
      req.headers['access-control-request-method']
    ) {
      await drain(req);
      return this.preflight(req);
    }
    const body = await readBody(req, this.options.api.maxPayloadBytes);
    if (!body) return TOO_LARGE();
    const match = this.router.match(method, target.rawPath);
    if (!match) return NOT_FOUND();
    const { route } = match;

    const request = describeRequest(req, target, body, match, requestId, this.now());
    let context: Record<string, unknown> | null = null;
    if (route.authorized) {
      const identity = request.headers[this.options.api.authorizer.header];
      if (!identity) return UNAUTHORIZED();
      const decision = await this.authorize(identity, request, route);
      if (decision === 'error') return INTERNAL();
      if (decision === 'deny') return FORBIDDEN();
      context = decision.context;
    }
    return this.integrate(route, request, context);
  }

  /** The cached or fresh decision for one identity value; failures are never cached. */
  private async authorize(
    identity: string,
    request: RequestParts,
    route: RouteDefinition,
  ): Promise<Decision | 'error'> {
    const ttl = this.options.authCacheTtlSeconds;
    const cached = ttl > 0 ? this.cache.get(identity) : undefined;
    if (cached && cached.expires > this.now()) return cached.decision;
    const { api } = this.options;
    const event = {
      version: '2.0',
      type: 'REQUEST',
      routeArn: `arn:aws:execute-api:local:000000000000:local/$default/${route.method}${request.rawPath}`,
      identitySource: [identity],
      ...request.common,
      requestContext: request.requestContext,
    };
    let decision: Decision | 'error';
    try {
      const invocation = this.options.invoke(api.authorizer.function, event);
      decision = readAuthorizerAnswer(await withTimeout(invocation, api.authorizer.timeoutSeconds));
    } catch {
      return 'error';
    }
    if (decision !== 'error' && ttl > 0) {
      this.cache.set(identity, { expires: this.now() + ttl * 1000, decision });
    }
    return decision;
  }

  private async integrate(
    route: RouteDefinition,
    request: RequestParts,
    context: Record<string, unknown> | null,
  ): Promise<Answer> {
    const event = {
      version: '2.0',
      ...request.common,
      requestContext: {
        ...request.requestContext,
        ...(route.authorized ? { authorizer: { lambda: context } } : {}),
      },
      ...request.payload,
    };
    let result: unknown;
    try {
      result = await withTimeout(
        this.options.invoke(route.function, event),
        this.options.api.integrationTimeoutSeconds,
      );
    } catch (error) {
      return error === TIMED_OUT ? UNAVAILABLE() : INTERNAL();
    }
    return mapFunctionAnswer(result) ?? INTERNAL();
  }

  private allowedOrigin(origin: string | undefined): string | undefined {
    if (this.origins.includes('*')) return '*';
    return origin && this.origins.includes(origin) ? origin : undefined;
  }

  /** CORS headers added to every answer but the preflight's own. */
  private corsHeaders(req: IncomingMessage): Record<string, string> {
    const origin = this.allowedOrigin(req.headers.origin);
    if (!origin) return {};
    return origin === '*'
      ? { 'access-control-allow-origin': '*' }
      : { 'access-control-allow-origin': origin, vary: 'origin' };
  }

  private preflight(req: IncomingMessage): Answer {
    const { cors } = this.options.api;
    const allowed = this.allowedOrigin(req.headers.origin);
    return {
      status: 204,
      headers: allowed
        ? {
            'access-control-allow-methods': cors.allowMethods.join(','),
            'access-control-allow-headers': cors.allowHeaders.join(','),
            'access-control-max-age': String(cors.maxAgeSeconds),
          }
        : {},
      body: Buffer.alloc(0),
    };
  }
}

/** An authorizer's decision: a denial, or the context to pass on. */
type Decision = 'deny' | { readonly context: Record<string, unknown> | null };

const TIMED_OUT = Symbol('timed out');

/** A simple response is `{isAuthorized: boolean, context?: object}`; anything else is malformed. */
function readAuthorizerAnswer(
  result: unknown,
): 'deny' | 'error' | { context: Record<string, unknown> | null } {
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
  const headers: Record<string, string> = {};
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

/** The parts of a request that both events share, and the integration's payload. */
interface RequestParts {
  readonly rawPath: string;
  readonly headers: Record<string, string>;
  readonly common: Record<string, unknown>;
  readonly requestContext: Record<string, unknown>;
  readonly payload: { body?: string; isBase64Encoded: boolean };
}

/** The request target as sent: the path and the query string without its `?`. */
interface Target {
  readonly rawPath: string;
  readonly rawQueryString: string;
}

/** Splits a request target without normalizing it (no dot-segment removal, no re-encoding). */
function splitTarget(url: string): Target {
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

function describeRequest(
  req: IncomingMessage,
  target: Target,
  body: Buffer,
  { route, pathParameters }: RouteMatch,
  requestId: string,
  now: number,
): RequestParts {
  const headers: Record<string, string> = {};
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
  const query: Record<string, string> = {};
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
  const text = TEXT_MEDIA.test(headers['content-type'] ?? '');
  const payload =
    body.length === 0
      ? { isBase64Encoded: false }
      : { body: text ? body.toString('utf8') : body.toString('base64'), isBase64Encoded: !text };
  return { rawPath, headers, common, requestContext, payload };
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** "17/Jun/2024:15:52:39 +0000", as `requestContext.time`. */
function formatTime(date: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${p(date.getUTCDate())}/${MONTHS[date.getUTCMonth()]}/${date.getUTCFullYear()}:${p(date.getUTCHours())}:${p(date.getUTCMinutes())}:${p(date.getUTCSeconds())} +0000`;
}

/** An id shaped like API Gateway's (`ZqwS2gQ6DoEEMhw=`). */
function newRequestId(): string {
  return `${randomBytes(10).toString('base64').slice(0, 14)}=`;
}

/** The whole body, or `undefined` once it passes `limit` bytes (the rest is drained). */
async function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= limit) chunks.push(chunk);
  }
  return size > limit ? undefined : Buffer.concat(chunks);
}

async function drain(req: IncomingMessage): Promise<void> {
  for await (const chunk of req) void chunk;
}

function withTimeout<T>(promise: Promise<T>, seconds: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(TIMED_OUT), seconds * 1000);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
