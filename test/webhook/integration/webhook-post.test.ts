/**
 * One delivery attempt over real sockets: success is a 2xx, a redirect is not followed, a hang
 * ends at the timeout, a large answer is cut, and the deployed policy refuses loopback whether
 * the URL names it as an address or as a name that resolves to it.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PUBLIC_ONLY } from '../../../lambda/webhook/address-policy';
import { post } from '../../../lambda/deliver/post';

const LOCAL = { allowLoopback: true };
let server: Server;
let base: string;
const seen: { path: string; headers: Record<string, unknown>; body: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ path: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString() });
      if (req.url === '/ok') res.writeHead(204).end();
      else if (req.url === '/redirect') res.writeHead(307, { location: '/ok' }).end();
      else if (req.url === '/big') {
        res.writeHead(200);
        res.write(Buffer.alloc(1024 * 1024, 'x'));
        // Never ends: the attempt must not wait for the rest.
      } else if (req.url === '/hang') {
        // No answer at all.
      } else res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const send = (path: string, policy = LOCAL, timeoutMs?: number) =>
  post(new URL(path, base), { 'webhook-id': 'msg_x' }, '{"id":1,"name":"a"}', policy, {
    timeoutMs,
  });

it('succeeds on a 2xx, sending the body and headers as given', async () => {
  expect(await send('/ok')).toEqual({ status: 204 });
  expect(seen.at(-1)).toMatchObject({
    path: '/ok',
    body: '{"id":1,"name":"a"}',
    headers: { 'webhook-id': 'msg_x' },
  });
});

it('does not follow a redirect', async () => {
  const before = seen.length;
  expect(await send('/redirect')).toEqual({ status: 307 });
  expect(seen.slice(before).map((s) => s.path)).toEqual(['/redirect']);
});

it('reads the status of a large answer without reading all of it', async () => {
  expect(await send('/big', LOCAL, 5_000)).toEqual({ status: 200 });
});

it('gives up on a receiver that does not answer', async () => {
  expect(await send('/hang', LOCAL, 200)).toEqual({ failure: 'no answer within 0.2 s' });
});

it('refuses loopback deployed, by address and by name, without connecting', async () => {
  const before = seen.length;
  expect(await send('/ok', PUBLIC_ONLY)).toEqual({
    failure: expect.stringMatching(/http is not allowed/),
  });
  const https = await post(new URL(base.replace('http:', 'https:') + '/ok'), {}, '{}', PUBLIC_ONLY);
  expect(https).toEqual({ failure: '127.0.0.1 is not a public address' });
  const port = new URL(base).port;
  const byName = await post(new URL(`https://localhost:${port}/ok`), {}, '{}', PUBLIC_ONLY);
  expect(byName).toEqual({
    failure: expect.stringMatching(/^localhost: .* is not a public address$/),
  });
  expect(seen.length).toBe(before);
});
