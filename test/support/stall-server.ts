/**
 * An HTTP server that answers every request at once with `{}` (200, or `statusOf`'s status), except that once, from
 * `afterMs` after its first request, it stalls for `stallMs`: everything that arrives meanwhile
 * (and everything in progress) is answered only when the stall ends, as a server paused by a
 * garbage collection or a full disk would. What a load tool should report is then known.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A running stall server. */
export interface StallServer {
  readonly url: string;
  /** Requests received. */
  readonly received: () => number;
  /** Requests that arrived during the stall, answered only as it ended. */
  readonly stalled: () => number;
  close(): Promise<void>;
}

/** Starts a stall server on an ephemeral loopback port. */
export async function startStallServer(options: {
  readonly afterMs: number;
  readonly stallMs: number;
  /** The status of the n-th request (from 0). @default 200 for every request */
  readonly statusOf?: (n: number) => number;
}): Promise<StallServer> {
  let first: number | undefined;
  let received = 0;
  let stalled = 0;
  const held: ServerResponse[] = [];
  let stallTimer: NodeJS.Timeout | undefined;
  const statuses = new WeakMap<ServerResponse, number>();
  const answer = (response: ServerResponse) =>
    response
      .writeHead(statuses.get(response) ?? 200, { 'content-type': 'application/json' })
      .end('{}');
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    statuses.set(response, options.statusOf?.(received) ?? 200);
    received++;
    request.resume();
    request.on('end', () => {
      const now = performance.now();
      if (first === undefined) {
        first = now;
        stallTimer = setTimeout(() => {
          stallTimer = setTimeout(() => held.splice(0).forEach(answer), options.stallMs);
        }, options.afterMs);
      }
      const stalling =
        now >= first + options.afterMs && now < first + options.afterMs + options.stallMs;
      if (stalling) {
        stalled++;
        held.push(response);
      } else answer(response);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received: () => received,
    stalled: () => stalled,
    close: () =>
      new Promise((resolve) => {
        clearTimeout(stallTimer);
        held.splice(0).forEach(answer);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
