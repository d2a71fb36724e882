/**
 * An HTTP server that answers as API Gateway's HTTP API does, serving the shared API
 * definition: limits, routing, CORS, the Lambda authorizer and its decision cache, the payload
 * 2.0 events, and the mapping of a function's answer to HTTP. A request is routed and
 * authorized before its body is read, so a request the gateway refuses is never buffered.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { MAX_INVOKE_PAYLOAD_BYTES, type ApiDefinition } from '../../definitions/api';
import type { FunctionName } from '../../definitions/functions';
import {
  ANSWERS,
  mapFunctionAnswer,
  readAuthorizerAnswer,
  type Answer,
  type Decision,
} from './answers';
import { discardBody, readBody } from './body';
import { Cors } from './cors';
import { DecisionCache } from './decision-cache';
import { describeRequest, newRequestId, payloadOf, splitTarget, type RequestParts } from './events';
import {
  MAX_REQUEST_LINE_AND_HEADER_BYTES,
  NODE_MAX_HEADER_SIZE,
  answerParseError,
  requestLineAndHeaderBytes,
} from './header-limit';
import { Router, type RouteMatch } from './router';
import { TokenBucket, type ThrottleSettings } from './throttle';
import { LOOPBACK_HOST_NAMES, MAX_REQUESTS_IN_FLIGHT } from '../process/settings';

/**
 * Pages the local runtime serves beside the emulated API (the API reference): asked first for
 * every request; an answer is sent as it is, without routing or authorizer. Not deployed.
 */
export type LocalPages = (method: string, pathname: string) => Promise<Answer | undefined>;

/**
 * Invokes a function; rejects when it fails, times out or crashes. `onStart` is called when a
 * sandbox receives the event: the gateway's timeouts count from then, not from a wait for a
 * sandbox to start, which on Lambda happens on other hosts (see docs/guides/local-development.md).
 */
export type Invoke = (name: FunctionName, event: unknown, onStart?: () => void) => Promise<unknown>;

/** How the gateway runs. */
export interface GatewayOptions {
  readonly api: ApiDefinition;
  readonly invoke: Invoke;
  /** Seconds a decision is cached per Authorization value; 0 turns caching off. */
  readonly authCacheTtlSeconds: number;
  /** Decisions cached at most; past it the oldest goes first. @default 10000 */
  readonly authCacheMaxEntries?: number;
  /**
   * Requests handled at once; beyond it the gateway answers 429 as a stage throttle does.
   * @default MAX_REQUESTS_IN_FLIGHT (64)
   */
  readonly maxConcurrentRequests?: number;
  /** Allowed CORS origins. @default - the definition's default */
  readonly corsAllowOrigins?: readonly string[];
  /** Receives one line per request. */
  readonly log: (line: string) => void;
  /** The clock, for the cache. @default Date.now */
  readonly now?: () => number;
  /** Local-only pages. @default - none */
  readonly localPages?: LocalPages;
  /**
   * The stage throttle: its settings, or a bucket that outlives this gateway (a restart keeps
   * its tokens). @default - none: no request is refused for rate
   */
  readonly throttle?: ThrottleSettings | TokenBucket;
  /**
   * A debugger is attached to the functions: the authorizer and integration timeouts do not
   * apply (a breakpoint may hold an invocation for minutes). @default false
   */
  readonly debugging?: boolean;
  /** Told of each request once it is answered (the local console records them). @default - nobody */
  readonly onAnswered?: (request: AnsweredRequest) => void;
}

/** A request the gateway answered, as its log line tells it, with the headers of both sides. */
export interface AnsweredRequest {
  readonly requestId: string;
  readonly method: string;
  readonly url: string;
  readonly status: number;
  readonly ms: number;
  readonly requestHeaders: IncomingMessage['headers'];
  readonly responseHeaders: Readonly<Record<string, string | string[]>>;
  readonly responseBody: Buffer;
}

/** The local HTTP API. */
export class Gateway {
  private readonly cache: DecisionCache<Decision>;
  private readonly now: () => number;
  private readonly cors: Cors;
  private readonly router: Router;
  private readonly maxConcurrent: number;
  private inFlight = 0;
  /** Requests whose answer is out while the rest of their body is dropped. */
  private readonly lingering = new Set<IncomingMessage>();
  /** Requests that were sent `100 Continue`. */
  private readonly continued = new WeakSet<IncomingMessage>();
  private server: Server | undefined;
  /** The `Host` values this gateway answers to, once it listens. */
  private hosts: readonly string[] = [];
  private readonly bucket: TokenBucket | undefined;

  constructor(private readonly options: GatewayOptions) {
    this.now = options.now ?? Date.now;
    this.cors = new Cors(
      options.api.cors,
      options.corsAllowOrigins ?? options.api.cors.defaultAllowOrigins,
    );
    this.router = new Router(options.api.routes);
    this.maxConcurrent = options.maxConcurrentRequests ?? MAX_REQUESTS_IN_FLIGHT;
    const { throttle } = options;
    this.bucket =
      throttle instanceof TokenBucket ? throttle : throttle && new TokenBucket(throttle);
    this.cache = new DecisionCache({
      ttlSeconds: options.authCacheTtlSeconds,
      maxEntries: options.authCacheMaxEntries ?? 10_000,
      now: this.now,
    });
  }

  /** Decisions in the authorizer cache now. */
  get cachedDecisions(): number {
    return this.cache.size;
  }

  /** Listens on 127.0.0.1:`port` (0: a free port) and returns the port. */
  async listen(port: number): Promise<number> {
    const serve = (req: IncomingMessage, res: ServerResponse) => void this.serve(req, res);
    const server = createServer({ maxHeaderSize: NODE_MAX_HEADER_SIZE }, serve);
    // `Expect: 100-continue` is answered only once the body is wanted (see `answer`), so a
    // client that waits for it never sends a body the gateway refuses.
    server.on('checkContinue', serve);
    server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) =>
      answerParseError(error, socket, this.cors.headers(undefined), this.options.log),
    );
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    const { port: bound } = server.address() as AddressInfo;
    this.hosts = LOOPBACK_HOST_NAMES.map((name) => `${name}:${bound}`);
    return bound;
  }

  /** Stops accepting requests and waits for those in flight. */
  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
      for (const req of this.lingering) req.socket.destroy();
    });
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // The stage throttle takes its token first, as the request arrives: nothing that runs after
    // (the authorizer, a sandbox starting) can let the bucket refill in between.
    const admitted = this.bucket?.take() ?? true;
    const started = performance.now();
    const requestId = newRequestId();
    this.inFlight += 1;
    res.once('close', () => (this.inFlight -= 1));
    let answer: Answer;
    try {
      answer = await this.answer(req, res, requestId, admitted);
    } catch (error) {
      this.options.log(`gateway error ${requestId}: ${String(error)}`);
      answer = ANSWERS.internal();
    }
    const headers: Record<string, string | string[]> = {
      ...answer.headers,
      ...this.cors.headers(req.headers.origin),
      'apigw-requestid': requestId,
      'content-length': String(answer.body.length),
    };
    if (answer.cookies?.length) headers['set-cookie'] = answer.cookies;
    // A client waiting for `100 Continue` that did not get it sends no body: the connection
    // cannot be reused, so it closes with this answer.
    const bodyWithheld =
      EXPECTS_CONTINUE.test(req.headers.expect ?? '') && !this.continued.has(req);
    if (bodyWithheld) headers.connection = 'close';
    if (!res.destroyed) {
      res.writeHead(answer.status, headers);
      if (bodyWithheld || req.complete) {
        // Nothing more will arrive: what is buffered of an unread body is dropped.
        req.resume();
        res.end(answer.body);
      } else this.linger(req, res, answer.body);
    }
    const ms = performance.now() - started;
    this.options.log(`${req.method} ${req.url} ${answer.status} ${ms.toFixed(1)}ms ${requestId}`);
    this.options.onAnswered?.({
      requestId,
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      status: answer.status,
      ms,
      requestHeaders: req.headers,
      responseHeaders: headers,
      responseBody: answer.body,
    });
  }

  private async answer(
    req: IncomingMessage,
    res: ServerResponse,
    requestId: string,
    admitted: boolean,
  ): Promise<Answer> {
    if (this.inFlight > this.maxConcurrent) return ANSWERS.tooManyRequests();
    if (requestLineAndHeaderBytes(req) > MAX_REQUEST_LINE_AND_HEADER_BYTES)
      return ANSWERS.headersTooLarge();
    // A page whose DNS name was rebound to 127.0.0.1 still sends its own name as Host: such a
    // request is refused before anything is looked at or started.
    const host = req.headers.host?.toLowerCase();
    if (host === undefined || !this.hosts.includes(host)) {
      this.options.log(
        `refused Host ${host ?? '(none)'}: the local gateway answers only to Host ${this.hosts.join(' or ')}`,
      );
      return ANSWERS.forbidden();
    }
    const target = splitTarget(req.url ?? '/');
    const method = (req.method ?? 'GET').toUpperCase();
    const page = await this.options.localPages?.(method, target.rawPath);
    if (page) {
      // The local pages are not part of the stage: their token goes back.
      if (admitted) this.bucket?.giveBack();
      return page;
    }
    if (!admitted) return ANSWERS.tooManyRequests();
    if (Cors.isPreflight(method, req.headers)) return this.cors.preflight(req.headers.origin);
    const match = this.router.match(method, target.rawPath);
    if (!match) return ANSWERS.notFound();

    const request = describeRequest(req, target, match, requestId, this.now());
    let context: Record<string, unknown> | null = null;
    if (match.route.authorized) {
      const identity = request.headers[this.options.api.authorizer.header];
      if (!identity) return ANSWERS.unauthorized();
      const decision = await this.authorize(identity, match, request);
      if (decision === 'error') return ANSWERS.internal();
      if (decision === 'deny') return ANSWERS.forbidden();
      context = decision.context;
    }
    // Only now, routed and authorized, is the body worth reading: at most up to Lambda's limit
    // on the event, which the body alone must not pass (API Gateway answers 413 for both).
    const limit = Math.min(this.options.api.maxPayloadBytes, MAX_INVOKE_PAYLOAD_BYTES);
    if (Number(req.headers['content-length']) > limit) return ANSWERS.tooLarge();
    if (EXPECTS_CONTINUE.test(req.headers.expect ?? '')) {
      this.continued.add(req);
      res.writeContinue();
    }
    const body = await readBody(req, limit);
    if (!body) return ANSWERS.tooLarge();
    return this.integrate(match, request, body, context);
  }

  /**
   * Sends the whole answer now but ends it only once the unread rest of the body has been
   * dropped as it arrives (never stored): Node would close a `Connection: close` request's
   * socket at the end, resetting a client still sending before it reads the answer. A body that
   * goes on past the payload limit or for longer than `LINGER_MS` closes the connection.
   */
  private linger(req: IncomingMessage, res: ServerResponse, body: Buffer): void {
    this.lingering.add(req);
    res.write(body);
    void discardBody(req, this.options.api.maxPayloadBytes, LINGER_MS).then((ended) => {
      this.lingering.delete(req);
      res.end();
      if (!ended) req.socket.destroy();
    });
  }

  /** The cached or fresh decision for one identity value; failures are never cached. */
  private async authorize(
    identity: string,
    { route }: RouteMatch,
    request: RequestParts,
  ): Promise<Decision | 'error'> {
    const cached = this.cache.get(identity);
    if (cached) return cached;
    const { api } = this.options;
    const event = {
      version: '2.0',
      type: 'REQUEST',
      // The route's method and the path as requested, as API Gateway writes it.
      routeArn: `arn:aws:execute-api:local:000000000000:local/$default/${route.method}${request.rawPath}`,
      identitySource: [identity],
      ...request.common,
      requestContext: request.requestContext,
    };
    let decision: Decision | 'error';
    try {
      decision = readAuthorizerAnswer(
        await withTimeout(
          (started) => this.options.invoke(api.authorizer.function, event, started),
          this.timeout(api.authorizer.timeoutSeconds),
        ),
      );
    } catch {
      return 'error';
    }
    if (decision !== 'error') this.cache.set(identity, decision);
    return decision;
  }

  private async integrate(
    { route }: RouteMatch,
    request: RequestParts,
    body: Buffer,
    context: Record<string, unknown> | null,
  ): Promise<Answer> {
    const event = {
      version: '2.0',
      ...request.common,
      requestContext: {
        ...request.requestContext,
        ...(route.authorized ? { authorizer: { lambda: context } } : {}),
      },
      ...payloadOf(body, request.headers['content-type']),
    };
    // The body is under the limit, but the event (base64, escapes, headers) may not be. Each
    // byte of the body is at most 6 in JSON (`\u0000`), so smaller bodies are never measured.
    if (
      body.length > MAX_INVOKE_PAYLOAD_BYTES / 8 &&
      Buffer.byteLength(JSON.stringify(event)) > MAX_INVOKE_PAYLOAD_BYTES
    ) {
      return ANSWERS.tooLarge();
    }
    let result: unknown;
    try {
      result = await withTimeout(
        (started) => this.options.invoke(route.function, event, started),
        this.timeout(this.options.api.integrationTimeoutSeconds),
      );
    } catch (error) {
      return error === TIMED_OUT ? ANSWERS.unavailable() : ANSWERS.internal();
    }
    return mapFunctionAnswer(result) ?? ANSWERS.internal();
  }

  /** A timeout in seconds, or none while a debugger may hold invocations. */
  private timeout(seconds: number): number | undefined {
    return this.options.debugging ? undefined : seconds;
  }
}

const TIMED_OUT = Symbol('timed out');
const EXPECTS_CONTINUE = /^100-continue$/i;
/** How long a refused body may keep coming after the answer. */
const LINGER_MS = 5000;

/** Runs `call`; rejects with TIMED_OUT `seconds` after the call says its invocation started. */
function withTimeout<T>(
  call: (started: () => void) => Promise<T>,
  seconds: number | undefined,
): Promise<T> {
  if (seconds === undefined) return call(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  let expire: (reason: unknown) => void = () => undefined;
  const timeout = new Promise<never>((_, reject) => (expire = reject));
  const started = () => {
    timer ??= setTimeout(() => expire(TIMED_OUT), seconds * 1000);
  };
  return Promise.race([call(started), timeout]).finally(() => clearTimeout(timer));
}
