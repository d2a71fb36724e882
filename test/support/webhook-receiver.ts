/**
 * A webhook receiver for tests: a real HTTP server on loopback that verifies every delivery with
 * the `standardwebhooks` package (as a subscriber would) and records it; `answer` decides what
 * each delivery gets (a status, or `'hang'` to never answer).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { DELIVERY_VISIBILITY_SECONDS } from '../../lambda/webhook/schedule';

/** One delivery as received. */
export interface Received {
  readonly id: string;
  readonly attempt: string;
  readonly body: string;
  /** True when the signature verified. */
  readonly verified: boolean;
  /** What the receiver answered. */
  readonly answered: number | 'hang';
  /** The request's headers (the signature, for a check with another secret). */
  readonly headers: Record<string, string>;
  /** When it arrived (epoch ms). */
  readonly at: number;
  /**
   * When its exchange ended (epoch ms): answered, or, for a hanging one, given up by the sender;
   * absent while it is open.
   */
  readonly endedAt?: number;
}

/** An answer with headers (`Retry-After`). */
export interface AnswerWithHeaders {
  readonly status: number;
  readonly headers: Record<string, string>;
}

/** What to answer: the n-th delivery (1-based) of this webhook-id. */
export type Answer = (nth: number, id: string) => number | 'hang' | AnswerWithHeaders;

/** A running receiver. */
export interface Receiver {
  readonly url: string;
  readonly received: Received[];
  /** Requests not answered yet (hanging). */
  readonly open: () => number;
  secret: string | undefined;
  answer: Answer;
  /** Distinct webhook-ids answered 2xx. */
  delivered(): Map<string, Received>;
  close(): Promise<void>;
}

/** Starts a receiver; set `secret` before the first delivery. */
export async function startReceiver(answer: Answer = () => 204): Promise<Receiver> {
  const received: Received[] = [];
  const hanging = new Set<ServerResponse>();
  const receiver: Receiver = {
    url: '',
    received,
    open: () => hanging.size,
    secret: undefined,
    answer,
    delivered() {
      const ok = new Map<string, Received>();
      for (const r of received) {
        if (typeof r.answered === 'number' && r.answered < 300) ok.set(r.id, r);
      }
      return ok;
    },
    close: async () => undefined,
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = Object.fromEntries(
        Object.entries(req.headers).map(([k, v]) => [k, String(v)]),
      );
      let verified: boolean;
      try {
        new Webhook(receiver.secret ?? '').verify(body, headers);
        verified = true;
      } catch {
        verified = false;
      }
      const id = headers['webhook-id'] ?? '';
      const nth = received.filter((r) => r.id === id).length + 1;
      const answer = verified ? receiver.answer(nth, id) : 401;
      const answered = typeof answer === 'object' ? answer.status : answer;
      const entry: { -readonly [K in keyof Received]: Received[K] } = {
        id,
        attempt: headers['webhook-attempt'] ?? '',
        body,
        verified,
        answered,
        headers,
        at: Date.now(),
      };
      received.push(entry);
      res.on('close', () => {
        entry.endedAt = Date.now();
        hanging.delete(res);
      });
      if (answered === 'hang') {
        hanging.add(res);
        return;
      }
      res.writeHead(answered, typeof answer === 'object' ? answer.headers : undefined).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${port}/hook`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

/**
 * A wait's bound that outlasts one redelivery besides `workMs`: on a starved machine a deliver
 * invocation can time out, and the deliveries it held come back only once their visibility
 * timeout has passed, as on AWS (sooner at a retry scale under 1, which scales that wait too).
 */
export function pastRedelivery(workMs: number): number {
  return DELIVERY_VISIBILITY_SECONDS * 1000 + workMs;
}

/**
 * Waits until `condition` holds (it may ask the service), checking every 50 ms; fails with `what` after `limitMs` (by
 * default a minute past one redelivery). `what` may be a function, read when the wait gives up:
 * what was seen by then (the attempts that came, the service's log tail).
 */
export async function until(
  condition: () => boolean | Promise<boolean>,
  what: string | (() => string),
  limitMs = pastRedelivery(60_000),
): Promise<void> {
  const started = Date.now();
  while (!(await condition())) {
    if (Date.now() - started > limitMs) {
      throw new Error(`gave up waiting: ${typeof what === 'string' ? what : what()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
