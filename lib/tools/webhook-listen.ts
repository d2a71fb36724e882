/**
 * `npm run webhook -- listen`: a receiver for trying the webhook by hand. It verifies each
 * delivery's signature with the `standardwebhooks` package (as a subscriber would), answers 204
 * (401 when the signature does not verify) and prints one line per delivery.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** How the receiver runs. */
export interface ListenOptions {
  readonly port: number;
  readonly secret: string;
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
}

/** A running receiver. */
export interface Listener {
  readonly port: number;
  close(): Promise<void>;
}

/** The longest body the receiver reads (a NewPlant is far smaller). */
const MAX_BODY = 1_048_576;

/** Starts the receiver on 127.0.0.1. */
export async function listen(options: ListenOptions): Promise<Listener> {
  const webhook = new Webhook(options.secret);
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY) chunks.push(chunk);
    });
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = Object.fromEntries(
        Object.entries(req.headers).map(([name, value]) => [name, String(value ?? '')]),
      );
      const id = headers['webhook-id'] ?? '(no webhook-id)';
      try {
        webhook.verify(body, headers, { jsonParse: false });
      } catch (error) {
        options.err(`${id}: signature does not verify (${(error as Error).message}); answered 401`);
        res.writeHead(401).end();
        return;
      }
      // The body as sent: JSON.parse would round an id beyond 2^53.
      options.out(`${id}\tattempt ${headers['webhook-attempt'] ?? '?'}\t${body}`);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
