/**
 * `webhook listen --forward-to` against a target that records what it receives: a verified
 * delivery goes on with its bytes, its content type and its `webhook-*` headers, and nothing
 * else a replayed capture may carry (`Authorization`, `Cookie`, `X-Forwarded-*`); the target's
 * status and `Retry-After` come back to the sender (that the secret comes from the environment
 * only is test/operator/unit/webhook-cli.test.ts's). The command, run in process, shows the
 * target as the other commands show a URL (no path or query, which may be a credential) and what
 * the sender and the target wrote with no control character.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { freePort } from '../../../lib/npm-start/in-process';
import { listen, type Listener } from '../../../lib/operator/webhook/listen';
import { runCommand } from '../../support/run-cli';

const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;

let target: Server;
let targetUrl: URL;
let listener: Listener;
const received: { headers: IncomingHttpHeaders; body: string }[] = [];
/** What the target answers next. */
let answer: { status: number; headers: Record<string, string>; text?: string } = {
  status: 204,
  headers: {},
};

beforeAll(async () => {
  target = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(answer.status, answer.headers).end(answer.text ?? 'busy');
    });
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  targetUrl = new URL(`http://127.0.0.1:${(target.address() as AddressInfo).port}/hook?k=1`);
  listener = await listen({
    port: 0,
    secret: SECRET,
    forwardTo: targetUrl,
    out: () => {},
    err: () => {},
  });
});
afterAll(async () => {
  await listener.close();
  await new Promise<void>((resolve) => {
    target.closeAllConnections();
    target.close(() => resolve());
  });
});

/** A delivery as the deliverer signs it, with whatever else a captured request carried. */
async function deliver(extra: Record<string, string>, port = listener.port) {
  const body = '{"type":"newPlant","data":{"id":9007199254740993}}';
  const id = `msg_${Math.random().toString(36).slice(2)}`;
  const timestamp = new Date();
  const signature = new Webhook(SECRET).sign(id, timestamp, body);
  const response = await fetch(`http://127.0.0.1:${port}/`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
      'webhook-signature': signature,
      'webhook-attempt': '2',
      ...extra,
    },
    body,
  });
  return { id, body, response };
}

it('forwards the body, the content type and the webhook-* headers, nothing else of the request', async () => {
  answer = { status: 204, headers: {} };
  const { id, body, response } = await deliver({
    authorization: 'Bearer pst_secret',
    cookie: 'session=abc',
    'x-forwarded-for': '203.0.113.7',
    'x-forwarded-host': 'internal.example',
    'user-agent': 'captured/1.0',
  });
  expect(response.status).toBe(204);
  const last = received.at(-1)!;
  expect(last.body).toBe(body);
  expect(last.headers['webhook-id']).toBe(id);
  expect(Object.keys(last.headers).sort()).toEqual(
    [
      'connection',
      'content-length',
      'content-type',
      'host',
      'webhook-attempt',
      'webhook-id',
      'webhook-signature',
      'webhook-timestamp',
    ].sort(),
  );
});

it('answers with the target’s status and Retry-After', async () => {
  answer = { status: 503, headers: { 'retry-after': '120' } };
  const { response } = await deliver({});
  expect(response.status).toBe(503);
  expect(response.headers.get('retry-after')).toBe('120');
  answer = { status: 429, headers: {} };
  const plain = await deliver({});
  expect(plain.response.status).toBe(429);
  expect(plain.response.headers.get('retry-after')).toBeNull();
});

it('forwards nothing that does not verify', async () => {
  const before = received.length;
  const response = await fetch(`http://127.0.0.1:${listener.port}/`, {
    method: 'POST',
    headers: { 'webhook-id': 'msg_x', 'webhook-timestamp': '1', 'webhook-signature': 'v1,AAAA' },
    body: '{}',
  });
  expect(response.status).toBe(401);
  expect(received).toHaveLength(before);
});

it('the command shows the target without its path and query, and no control character', async () => {
  answer = { status: 500, headers: {}, text: 'no\x1b]0;owned\x07\x1b[2J\x9b31m' };
  const port = await freePort();
  const stop = new AbortController();
  const withCredential = `${targetUrl.origin}/hooks/tok_s3cret?key=k3y`;
  const running = runCommand(
    'webhook',
    ['listen', '--port', String(port), '--forward-to', withCredential],
    { PLANT_STORE_WEBHOOK_SECRET: SECRET },
    stop.signal,
  );
  let delivered: Awaited<ReturnType<typeof deliver>> | undefined;
  for (let tries = 0; !delivered && tries < 100; tries++) {
    delivered = await deliver({}, port).catch(() => undefined);
    if (!delivered) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const refused = await fetch(`http://127.0.0.1:${port}/`, {
    method: 'POST',
    headers: { 'webhook-id': 'msg_\x9b2J', 'webhook-timestamp': '1', 'webhook-signature': 'v1,A' },
    body: '{}',
  });
  stop.abort();
  const { code, stdout, stderr } = await running;
  expect([code, delivered?.response.status, refused.status]).toEqual([0, 500, 401]);
  expect(received.at(-1)!.body).toBe(delivered!.body);
  expect(stderr).toContain(`forwarding to ${targetUrl.origin}/…`);
  expect(stdout).toContain(`${delivered!.id}\t→ ${targetUrl.origin}/…\t500\tno ]0;owned  [2J 31m`);
  expect(stderr).toContain('msg_ 2J: signature does not verify');
  expect(stdout + stderr).not.toMatch(/tok_s3cret|k3y|\p{Cc}(?<![\t\n])/u);
});
