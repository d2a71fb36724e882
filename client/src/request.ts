/**
 * The request pipeline every call goes through once: headers (the client's, the call's, the
 * token), the per-attempt timeout, retries, the caller's signal, and the log lines. It hands on
 * the answer read whole (within the attempt's timeout); reading it into data or an error is the
 * operation's part.
 */
import {
  ConnectionError,
  ConnectionTimeoutError,
  isServiceError,
  parseError,
  parseRetryAfter,
} from './errors.js';
import type { Logger } from './logging.js';
import { changedNothing, isRetryable, retryDelay, retryPolicy, sleep } from './retry.js';
import type { RetryOptions, RetryPolicy } from './retry.js';
import type { paths } from './schema.js';
import { checkTimeout, startDeadline } from './timeout.js';

/** Options of one call, merged over the client's. */
export interface CallOptions {
  /** Aborts this call, waits between retries included; the call rejects with its reason. */
  readonly signal?: AbortSignal;
  /** Milliseconds each attempt may take, from sending to the answer's last byte. */
  readonly timeout?: number;
  /** Retries of this call; members given replace the client's. */
  readonly retry?: RetryOptions;
  /** Headers to send (a trace id); they replace the client's of the same name. */
  readonly headers?: Record<string, string>;
}

/** What a client sends every call with, checked once when it is built. */
export interface Settings {
  readonly baseUrl: string;
  readonly token: string;
  readonly fetch?: (request: Request) => Promise<Response>;
  readonly signal?: AbortSignal;
  readonly timeout: number;
  readonly retry: RetryPolicy;
  readonly headers: Headers;
  readonly log: Logger;
}

type Verb = 'get' | 'put' | 'post' | 'delete' | 'patch';

/** The methods the API serves on some path, read from the generated schema (openapi.json's). */
export type Method = Uppercase<
  {
    [P in keyof paths]: { [V in Verb]: undefined extends paths[P][V] ? never : V }[Verb];
  }[keyof paths]
>;

/** An operation's request: the path under the base URL, its query, its JSON body, its own headers. */
export interface Route {
  readonly method: Method;
  readonly path: string;
  readonly query?: Readonly<Record<string, string | number | undefined>>;
  readonly body?: string;
  /** The body's media type. @default 'application/json' */
  readonly contentType?: string;
  /** Headers the operation sends (`If-Match`), over the client's and the call's. */
  readonly headers?: Readonly<Record<string, string>>;
}

/** An answer as the pipeline hands it on: read whole, within the attempt's timeout. */
export interface Answer {
  readonly response: Response;
  readonly text: string;
  /** Whether an earlier attempt of this call may have taken effect (its answer was lost). */
  readonly mayHaveActed: boolean;
}

/**
 * Sends, and sends again while the answer (or its absence) says to and retries are left; a
 * `ConnectionError` (`ConnectionTimeoutError`) when no attempt was answered (in time), the
 * signal's reason when the caller aborts.
 */
export async function send(
  settings: Settings,
  route: Route,
  options: CallOptions = {},
): Promise<Answer> {
  const policy = options.retry ? retryPolicy(options.retry, settings.retry) : settings.retry;
  const timeout = options.timeout === undefined ? settings.timeout : checkTimeout(options.timeout);
  const signal = combine(settings.signal, options.signal);
  const headers = new Headers(settings.headers);
  for (const [name, value] of new Headers(options.headers)) headers.set(name, value);
  for (const [name, value] of Object.entries(route.headers ?? {})) headers.set(name, value);
  headers.set('authorization', `Bearer ${settings.token}`);
  if (route.body !== undefined) {
    headers.set('content-type', route.contentType ?? 'application/json');
  }
  // encodeURIComponent, not URLSearchParams: its `+` for a space is not every server's space.
  const query = Object.entries(route.query ?? {})
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(String(value))}`);
  const url = settings.baseUrl + route.path + (query.length ? `?${query.join('&')}` : '');
  const what = `${route.method} ${url}`;
  const attempts = policy.retries + 1;
  const log = settings.log;
  let mayHaveActed = false;
  let staleReads = 0;

  for (let attempt = 1; ; attempt++) {
    signal?.throwIfAborted();
    const last = attempt === attempts;
    const deadline = startDeadline(timeout, signal);
    const started = Date.now();
    log.debug(`plant-store: ${what} (attempt ${attempt} of ${attempts})`);
    let outcome: Exchange;
    try {
      // Outside `exchange`'s catch: a request the platform will not build (a TypeError too) is
      // thrown as it is, not retried as a lost answer.
      const request = new Request(url, {
        method: route.method,
        headers,
        body: route.body,
        // Never follow: a 301/302 would turn a POST into a GET and answer its page as success.
        redirect: 'error',
        signal: deadline.signal,
      });
      outcome = await exchange(settings.fetch, request, deadline.signal);
    } finally {
      deadline.clear();
    }

    if ('error' in outcome) {
      const { error } = outcome;
      // The caller's own abort: its reason, as the platform's fetch does.
      if (signal?.aborted) throw signal.reason;
      const timedOut = deadline.timedOut();
      if (
        !timedOut &&
        route.method === 'GET' &&
        staleReads < MAX_STALE_READS &&
        isStaleConnection(error)
      ) {
        // A read, safe to send again whether or not the server read it: not an attempt.
        staleReads++;
        attempt--;
        log.debug(`plant-store: ${what} found its pooled connection closed; sending it again`);
        continue;
      }
      // fetch rejects with a TypeError when no answer came (refused, reset, DNS, CORS); by
      // name, as a `fetch` from another realm (a test runner's, an iframe's) has its own class.
      // A kept-alive connection that closes before the answer is one too: that it carried
      // earlier answers does not show that the server left a write unread.
      if (!timedOut && (error as { name?: unknown }).name !== 'TypeError') throw error;
      if (!timedOut && isRedirect(error)) {
        throw new ConnectionError(
          `${what}: the API answered with a redirect, which the client does not follow (check baseUrl)`,
          { cause: error },
        );
      }
      mayHaveActed = true;
      const why = timedOut ? `timed out after ${timeout} ms` : `got no answer (${describe(error)})`;
      if (last) {
        const message = `${what} ${why}, on each of ${attempts} attempt${attempts > 1 ? 's' : ''}`;
        throw timedOut
          ? new ConnectionTimeoutError(message, { cause: error })
          : new ConnectionError(message, { cause: error });
      }
      const delay = retryDelay(policy, attempt - 1)!;
      log.warn(retryLine(what, why, delay, attempt + 1, attempts));
      await sleep(delay, signal);
      continue;
    }

    const { response, text } = outcome;
    const { status, headers: answered } = response;
    const requestId = answered.get('apigw-requestid');
    const id = requestId === null ? '' : ` (apigw-requestid ${requestId})`;
    log.debug(`plant-store: ${what} answered ${status} in ${Date.now() - started} ms${id}`);
    const answer = { response, text, mayHaveActed };
    if (response.ok || last) return answer;
    const fromGateway = !isServiceError(parseError(text));
    if (!isRetryable(status, fromGateway)) return answer;
    const delay = retryDelay(policy, attempt - 1, parseRetryAfter(answered.get('retry-after')));
    if (delay === undefined) return answer;
    if (!changedNothing(status, fromGateway, route.method)) mayHaveActed = true;
    log.warn(retryLine(what, `answered ${status}${id}`, delay, attempt + 1, attempts));
    await sleep(delay, signal);
  }
}

/** One attempt's answer read whole, or what `fetch` or the body's reading threw. */
type Exchange =
  { readonly response: Response; readonly text: string } | { readonly error: unknown };

/**
 * Sends `request` and reads its answer whole; what either step throws is the outcome. Each step
 * ends when the attempt's signal aborts, even with a `fetch` that ignores `request.signal` (or a
 * body that never ends): the timeout and the caller's signal hold whatever `fetch` is given.
 */
async function exchange(
  fetch: Settings['fetch'],
  request: Request,
  signal: AbortSignal,
): Promise<Exchange> {
  let response: Response;
  try {
    // Looked up on each call, so that a `fetch` installed later (a test's, a polyfill) is used;
    // called unbound, as a browser's `fetch` must be.
    const sent = Promise.resolve(fetch ? fetch(request) : globalThis.fetch(request));
    // An answer that comes after the attempt was given up: nobody reads its body.
    sent.then(
      (late) => void (signal.aborted && late?.body?.cancel().catch(() => undefined)),
      () => undefined,
    );
    response = await untilAborted(sent, signal);
  } catch (error) {
    return { error };
  }
  // A `fetch` given that answers no Response is a programming error: thrown as it is, not
  // retried as a lost answer.
  if (typeof (response as Partial<Response> | undefined)?.text !== 'function') {
    throw new TypeError(`fetch resolved to ${String(response)}, not a Response`);
  }
  try {
    return { response, text: await untilAborted(response.text(), signal) };
  } catch (error) {
    return { error };
  }
}

/** `promise`, or a rejection with the signal's reason as soon as it aborts, whichever is first. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    promise.finally(() => signal.removeEventListener('abort', onAbort)).then(resolve, reject);
  });
}

function retryLine(what: string, why: string, delay: number, next: number, attempts: number) {
  return `plant-store: ${what} ${why}; retrying in ${delay} ms (attempt ${next} of ${attempts})`;
}

/** Sends of a read after a pooled connection was found closed, beyond its attempts. */
const MAX_STALE_READS = 10;

/**
 * Whether `fetch` failed because a kept-alive connection the request was written to had been
 * closed: it ended before the answer's headers and had carried earlier answers (undici, Node's
 * `fetch`, says so: `UND_ERR_SOCKET` with the socket's `bytesRead`). Most often the server had
 * closed it idle, without reading the request; but that cannot be told from a server that read
 * it and then failed, so only a read is sent again for it without counting an attempt.
 */
function isStaleConnection(error: unknown): boolean {
  const cause = (error as { cause?: { code?: unknown; socket?: { bytesRead?: unknown } } }).cause;
  const bytesRead = cause?.socket?.bytesRead;
  return cause?.code === 'UND_ERR_SOCKET' && typeof bytesRead === 'number' && bytesRead > 0;
}

/** Whether fetch refused to follow a redirect (undici says so in the cause; browsers do not). */
function isRedirect(error: unknown): boolean {
  const cause = (error as { cause?: { message?: unknown } }).cause;
  return typeof cause?.message === 'string' && /redirect/i.test(cause.message);
}

/** A network failure in a few words: the message, and the system's code when there is one. */
function describe(error: unknown): string {
  const { message, cause } = error as { message?: unknown; cause?: { code?: unknown } };
  const code = typeof cause?.code === 'string' ? `: ${cause.code}` : '';
  return `${String(message)}${code}`;
}

function combine(a?: AbortSignal, b?: AbortSignal): AbortSignal | undefined {
  if (!a || !b) return a ?? b;
  return AbortSignal.any([a, b]);
}
