/**
 * The local console: a page `npm start` serves on a port of its own (not a path of the API: the
 * gateway adds the API's CORS headers to every answer it sends, and the console must answer no
 * other origin) with the run's invocations, its data and the CLIs' actions. Safe by default: it
 * listens on 127.0.0.1 only, answers only to Host `127.0.0.1:<port>` (against DNS rebinding, and
 * never `localhost`, which a browser may send to ::1, an address another user can hold), sends no
 * CORS header, refuses any request another origin makes, and its API needs this run's key in a
 * header, which a page of another origin cannot send without a preflight (refused). The key
 * travels in the URL's fragment, which the browser never sends: whoever has the printed URL, or
 * can read `console-url` in the private data directory, may use the console; another user of the
 * machine may not. The page is plain HTML, JavaScript and CSS from this folder: nothing from a
 * CDN.
 */
import { readFile, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import {
  detailOf,
  redacted,
  summaryOf,
  writePrivateFile,
  type Invocations,
} from '../npm-start/find';
import { BadRequest, HttpError } from '../../lambda/http/answers';
import { argument, readPlants, rowsOf, runCommand, type Ran, type Where } from './data';
import { act } from './actions';
import { makeConsoleKey, refusal, type Allowed } from './guards';
import { stateNames } from './state-actions';

export { CONSOLE_HEADER } from './guards';

/** What the console serves. */
export interface ConsoleOptions extends Where {
  readonly invocations: Invocations;
  /** 0 picks a free port. */
  readonly port: number;
  readonly log: (line: string) => void;
}

/** A running console. */
export interface RunningConsole {
  /** The page's URL, this run's key in its fragment: `http://127.0.0.1:<port>/#key=<key>`. */
  readonly url: string;
  readonly port: number;
  /** This run's key, which every API call carries in `CONSOLE_HEADER`. */
  readonly key: string;
  close(): Promise<void>;
}

/** Where a running console's URL (with its key) is kept (0600) while it runs. */
export function consoleUrlFile(dataDir: string): string {
  return join(dataDir, 'console-url');
}

const PAGE_DIR = join(__dirname, 'page');
const ASSETS: Readonly<Record<string, [file: string, type: string]>> = {
  '/': ['index.html', 'text/html; charset=utf-8'],
  '/console.js': ['console.js', 'text/javascript; charset=utf-8'],
  '/console.css': ['console.css', 'text/css; charset=utf-8'],
};
const HEADERS = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-resource-policy': 'same-origin',
  'content-security-policy':
    "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; form-action 'none'; base-uri 'none'",
};

/**
 * Starts the console on 127.0.0.1:`port` with a new key, and keeps its URL in `consoleUrlFile`
 * until it closes.
 */
export async function startConsole(options: ConsoleOptions): Promise<RunningConsole> {
  let allowed: Allowed = { hosts: [], origins: [], key: makeConsoleKey() };
  const server: Server = createServer((req, res) => {
    serve(req, res, options, allowed).catch((error: unknown) => {
      if (error instanceof HttpError && error.status < 500) {
        req.resume();
        return send(res, error.status, { error: error.message });
      }
      const shown = String((error as Error)?.stack ?? error);
      // The target as sent, up to its query (which may hold a secret): it may be no URL at all.
      options.log(`[console] ${req.method} ${(req.url ?? '/').split('?')[0]}: ${shown}`);
      send(res, 500, { error: "the console failed (the details are in npm start's log)" });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  // 127.0.0.1 alone, the name the printed URL uses, never `localhost`: a browser tries ::1 first
  // for `localhost`, where another user of the machine may listen on this port and read the key
  // in the fragment. Refusing the name keeps every working console URL on the address this
  // server holds; holding [::1]:<port> as well would need a second socket that another process
  // can take first and that a machine without IPv6 cannot open.
  const hosts = [`127.0.0.1:${port}`];
  allowed = { ...allowed, hosts, origins: hosts.map((host) => `http://${host}`) };
  const url = `http://127.0.0.1:${port}/#key=${allowed.key}`;
  const file = consoleUrlFile(options.dataDir);
  const close = async () => {
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
    await rm(file, { force: true });
  };
  try {
    await writePrivateFile(file, `${url}\n`);
  } catch (error) {
    await close();
    throw error;
  }
  return { url, port, key: allowed.key, close };
}

function send(res: ServerResponse, status: number, body: unknown, type = 'application/json') {
  if (res.headersSent) return void res.end();
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { ...HEADERS, 'content-type': type });
  res.end(text);
}

async function serve(
  req: IncomingMessage,
  res: ServerResponse,
  options: ConsoleOptions,
  allowed: Allowed,
): Promise<void> {
  const { pathname } = urlOf(req);
  const api = pathname.startsWith('/api/');
  const refused = refusal(req, allowed, api);
  if (refused) {
    options.log(`[console] ${refused}`);
    req.resume();
    return send(res, 403, { error: refused });
  }
  if (!api) {
    const asset = req.method === 'GET' ? ASSETS[pathname] : undefined;
    if (!asset) return send(res, 404, { error: 'not found' });
    return send(res, 200, await readFile(join(PAGE_DIR, asset[0]), 'utf8'), asset[1]);
  }
  if (req.method === 'GET') return send(res, ...(await read(urlOf(req), options)));
  if (req.method === 'POST') {
    const body = await readJson(req);
    return send(res, ...(await act(body, options)));
  }
  return send(res, 405, { error: 'GET or POST' });
}

/** A request's URL (its path and query; the host is the console's), or a 400 for a target that is none. */
function urlOf(req: IncomingMessage): URL {
  try {
    return new URL(req.url ?? '/', 'http://console.invalid');
  } catch {
    throw new BadRequest('the request target is no path');
  }
}

/** The console's reads. */
async function read(url: URL, options: ConsoleOptions): Promise<[number, unknown]> {
  const { invocations } = options;
  const q = Object.fromEntries(url.searchParams);
  const path = url.pathname.slice('/api/'.length);
  if (path === 'entries') {
    const version = invocations.version;
    if (q.version === String(version)) return [200, { version }];
    return [200, { version, entries: invocations.list().map(summaryOf) }];
  }
  const entry = /^entries\/(\d+)$/.exec(path);
  if (entry) {
    const found = invocations.get(Number(entry[1]));
    return found ? [200, detailOf(found)] : [404, { error: 'no longer kept' }];
  }
  if (path === 'plants') {
    try {
      return [200, await readPlants(options, q)];
    } catch (error) {
      if (error instanceof HttpError) throw error;
      return [502, { error: `the engine did not answer: ${(error as Error).message}` }];
    }
  }
  if (path === 'tokens') return listed(await runCommand('token', ['list'], options));
  if (path === 'subscribers') return listed(await runCommand('webhook', ['list'], options));
  if (path === 'dead-letters')
    return listed(await runCommand('webhook', ['dead-letters'], options));
  const attempts = /^subscribers\/([^/]+)\/attempts$/.exec(path);
  if (attempts) {
    const id = argument('subscriberId', decoded(attempts[1]!));
    return listed(await runCommand('webhook', ['attempts', '--', id], options));
  }
  if (path === 'states') return [200, { names: await stateNames(options) }];
  return [404, { error: 'not found' }];
}

/**
 * A listing command's rows, with its notes; a failed command (the engine not answering, an
 * unknown subscriber) is an error answer, 502, with what the command said.
 */
function listed(ran: Ran): [number, unknown] {
  if (ran.code !== 0) {
    const error = ran.err.join('\n') || `the command failed (exit code ${ran.code})`;
    return [502, redacted({ error })];
  }
  return [200, redacted({ code: ran.code, rows: rowsOf(ran.out), notes: ran.err })];
}

/** A percent-encoded path segment, decoded; 400 when it is not valid percent-encoding. */
function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new BadRequest(`${segment} is not valid percent-encoding`);
  }
}

/** A JSON object body of at most 1 MB; 413 past it, 400 for anything but a JSON object. */
async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > 1_048_576) throw new HttpError(413, 'an action is at most 1 MB');
    chunks.push(chunk);
  }
  let value: unknown;
  try {
    value = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
  } catch (error) {
    throw new BadRequest(`an action is a JSON object: ${(error as Error).message}`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw new BadRequest('an action is a JSON object');
  }
  return value as Record<string, unknown>;
}
