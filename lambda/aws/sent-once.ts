/**
 * A write the SDK sends once. The SDK sends a call again after a timeout, a reset connection or a
 * 5xx (`BOUNDED_CALLS`: three tries), and any of those may come after DynamoDB made the write:
 * sent again, a conditional write is then refused by its own first try, or made a second time
 * over another client's write in between. A write sent with `sentOnce` is sent again only after
 * an answer that says nothing was written (a 4xx: a throttle; a refused condition is no retry) or
 * a connection never made; after any other failure it throws `MaybeWritten`, and its caller reads
 * the item to learn what was written.
 */
import type { MiddlewareStack } from '@smithy/types';

/** A write that failed in a way that leaves open whether DynamoDB made it. */
export class MaybeWritten extends Error {
  override readonly name = 'MaybeWritten';

  /**
   * `failure` is kept under its own name, not as `cause`: the SDK's retry classifies an error by
   * its cause too, and would send the write again.
   */
  constructor(readonly failure: unknown) {
    super('the store did not answer whether the write was made');
  }
}

/** Node's codes of a connection that was never made: the request was not sent. */
const NOT_CONNECTED = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);
/**
 * The SDK's HTTP handler's connection timeout (`connectionTimeout`), a `TimeoutError` without a
 * code, told by its message (@smithy/node-http-handler's set-connection-timeout): not connected.
 */
const CONNECTION_TIMEOUT = /did not establish a connection/;

/**
 * Whether a failed try may have been made: not when DynamoDB refused it (an error of the client's
 * fault, a 4xx: a refused condition, a throttle, a bad request), nor when no connection was made.
 * Anything else may follow a write DynamoDB made: a 5xx ("may or may not have succeeded"), a
 * reset, a request timeout, an answer cut off.
 */
export function mayHaveBeenMade(error: unknown): boolean {
  const { $fault, $metadata, code, message } = (error ?? {}) as {
    $fault?: string;
    $metadata?: { httpStatusCode?: number };
    code?: string;
    message?: unknown;
  };
  const status = $metadata?.httpStatusCode;
  if ($fault === 'client' || (status !== undefined && status >= 400 && status < 500)) return false;
  if (typeof code === 'string' && NOT_CONNECTED.has(code)) return false;
  return !(typeof message === 'string' && CONNECTION_TIMEOUT.test(message));
}

/**
 * `command`, which the SDK now sends again only when its try was surely not made: a middleware
 * inside the SDK's retry loop turns every other failure into `MaybeWritten`, which that loop does
 * not retry. Added to the command, not the client, and so lost if the client were built with
 * `cacheMiddleware` (one resolved stack per command class): ours are not.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any command's: its middleware reads neither input nor output
export function sentOnce<T extends { readonly middlewareStack: MiddlewareStack<any, any> }>(
  command: T,
): T {
  command.middlewareStack.add(
    (next) => async (args) => {
      try {
        return await next(args);
      } catch (error) {
        throw mayHaveBeenMade(error) ? new MaybeWritten(error) : error;
      }
    },
    // Inside the retry middleware (finalizeRequest), around the deserializer: it sees each try's
    // failure as the SDK's error, a service error read from its answer included. `override`: a
    // document client's command shares its stack with the command it wraps, which merges it
    // again (as lib-dynamodb's own middleware is added).
    { step: 'deserialize', priority: 'high', name: 'sentOnce', override: true },
  );
  return command;
}
