/**
 * `npm run webhook -- listen`: a receiver for trying the webhook by hand. It verifies each
 * delivery's signature with the `standardwebhooks` package (as a subscriber would), answers 204
 * (401 when the signature does not verify) and prints one line per delivery. With `forwardTo`,
 * each verified delivery is sent on — the same bytes, its content type and its `webhook-*`
 * headers, nothing else of the request (an `Authorization`, a cookie or a proxy's header a
 * replayed capture carried stays here) — and answered with the status and `Retry-After` that
 * receiver gave, so that the deliverer retries what it refused, when it was asked to. The secret
 * comes from the environment only: a command-line argument is visible to every user of the
 * machine (`ps`).
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { SECRET_FORMAT } from '../../../lambda/webhook/signature';
import { fieldText, integerOption, UsageError } from '../../cli/args';
import type { CliIo } from '../../cli/run';
import { DEFAULT_LISTEN_PORT, SECRET_VARIABLE } from './help';
import { shownUrl } from './receivers';

/** How the receiver runs. */
export interface ListenOptions {
  readonly port: number;
  readonly secret: string;
  /** Where verified deliveries go on to. @default - nowhere: answered 204 */
  readonly forwardTo?: URL;
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

/** The request headers forwarded: the delivery's own (RFC 9110 names are case-insensitive). */
const forwarded = (name: string) => /^(content-type|webhook-[a-z0-9-]+)$/i.test(name);

/** How long the receiver forwarded to may take, as the deliverer allows a receiver. */
const FORWARD_TIMEOUT_MS = 10_000;

/** Starts the receiver on 127.0.0.1. */
export async function listen(options: ListenOptions): Promise<Listener> {
  const webhook = new Webhook(options.secret);
  // As the other commands show a URL: its path and query may be a credential.
  const target = options.forwardTo && shownUrl(options.forwardTo.href);
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY) chunks.push(chunk);
    });
    req.on('end', () => {
      const bytes = Buffer.concat(chunks);
      const body = bytes.toString('utf8');
      const headers = Object.fromEntries(
        Object.entries(req.headers).map(([name, value]) => [name, String(value ?? '')]),
      );
      // What the sender or the target wrote is printed with no control character that could
      // drive the terminal.
      const id = fieldText(headers['webhook-id'] ?? '(no webhook-id)');
      try {
        webhook.verify(body, headers, { jsonParse: false });
      } catch (error) {
        const why = fieldText((error as Error).message);
        options.err(`${id}: signature does not verify (${why}); answered 401`);
        res.writeHead(401).end();
        return;
      }
      // The body as sent: JSON.parse would round an id beyond 2^53.
      const attempt = fieldText(headers['webhook-attempt'] ?? '?');
      options.out(`${id}\tattempt ${attempt}\t${fieldText(body)}`);
      if (!options.forwardTo) {
        res.writeHead(204).end();
        return;
      }
      void forward(options.forwardTo, req.rawHeaders, bytes).then(
        ({ status, retryAfter, text }) => {
          options.out(`${id}\t→ ${target}\t${status}\t${fieldText(text)}`);
          res.writeHead(status, retryAfter === null ? {} : { 'retry-after': retryAfter }).end();
        },
        (error: unknown) => {
          const why = (error as { cause?: { code?: string } }).cause?.code ?? String(error);
          options.err(`${id}: ${target} did not answer (${fieldText(why)}); answered 502`);
          res.writeHead(502).end();
        },
      );
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

/**
 * Sends `body` on to `url` with the delivery's headers received (content type and `webhook-*`,
 * as sent) and no other but what HTTP itself needs (host, length, connection); resolves
 * with the status, its `Retry-After` and the first 300 characters of the answer.
 */
function forward(
  url: URL,
  rawHeaders: readonly string[],
  body: Buffer,
): Promise<{ status: number; retryAfter: string | null; text: string }> {
  const headers: Record<string, string> = {};
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    if (!forwarded(name)) continue;
    const key = Object.keys(headers).find((k) => k.toLowerCase() === name.toLowerCase()) ?? name;
    headers[key] = key in headers ? `${headers[key]}, ${rawHeaders[i + 1]!}` : rawHeaders[i + 1]!;
  }
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(body.length) },
        signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const retryAfter = res.headers['retry-after'];
          resolve({
            status: res.statusCode ?? 502,
            retryAfter: retryAfter === undefined ? null : String(retryAfter),
            text: Buffer.concat(chunks).toString('utf8').slice(0, 300).replace(/\s+/g, ' '),
          });
        });
      },
    );
    req.on('error', (error) => reject(Object.assign(new Error(error.message), { cause: error })));
    req.end(body);
  });
}

/** `listen`'s options as the command line gives them. */
export interface ListenCommandOptions {
  readonly port?: string;
  readonly 'forward-to'?: string;
}

/** `listen`: serves until `io.signal` aborts (SIGINT or SIGTERM), then closes its port. */
export async function listenCommand(options: ListenCommandOptions, io: CliIo): Promise<void> {
  const secret = io.env[SECRET_VARIABLE];
  if (!secret) throw new UsageError(`listen needs the secret in $${SECRET_VARIABLE}`);
  if (!SECRET_FORMAT.test(secret))
    throw new UsageError('the secret must be whsec_ and 32 bytes of base64, as add printed it');
  const port = integerOption(options.port, 'port', DEFAULT_LISTEN_PORT, 0, 65535);
  const forwardTo = forwardUrl(options['forward-to']);
  const listener = await listen({ port, secret, forwardTo, out: io.out, err: io.err });
  io.err(
    `listening on http://127.0.0.1:${listener.port}/${forwardTo ? `, forwarding to ${shownUrl(forwardTo.href)}` : ''} (Ctrl-C stops)`,
  );
  await new Promise<void>((resolve) => {
    if (io.signal?.aborted) resolve();
    io.signal?.addEventListener('abort', () => resolve(), { once: true });
  });
  await listener.close();
}

/** `listen --forward-to`: where verified deliveries go on to (any http(s) URL, loopback too). */
function forwardUrl(raw: string | undefined): URL | undefined {
  if (raw === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`--forward-to must be an absolute http(s) URL, not ${raw}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`--forward-to must be http or https, not ${url.protocol.slice(0, -1)}`);
  }
  return url;
}
