/**
 * The local gateway's limits over real loopback HTTP (functions are stubs): a request is routed
 * and authorized before its body is read, bodies past the payload limit are 413, requests past
 * the concurrency cap are 429, and headers past API Gateway's quota are a JSON 431.
 */
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { MAX_REQUEST_LINE_AND_HEADER_BYTES } from '../../../lib/local/gateway';
import { OK, closeGateways, stubbedGateway, type Stub } from '../../support/gateway';

afterEach(closeGateways);

const DENY: Stub = async () => ({ isAuthorized: false });
const TEN_MB = 10 * 1024 * 1024;

interface Early {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  /** Body bytes the client had written when the answer came. */
  sent: number;
}

/**
 * Declares a `declared`-byte body, sends only `first` bytes of it, and waits for the answer:
 * an answer at all proves the gateway decided without the rest of the body.
 */
function earlyAnswer(
  port: number,
  path: string,
  headers: Record<string, string>,
  declared: number,
  first: number,
): Promise<Early> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path,
      agent: false,
      headers: { 'content-length': String(declared), 'content-type': 'text/plain', ...headers },
    });
    let done = false;
    req.on('error', (error) => done || reject(error));
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => {
        done = true;
        resolve({ status: res.statusCode!, headers: res.headers, body, sent: first });
        req.destroy();
      });
    });
    req.write(Buffer.alloc(first, 'x'));
  });
}

/** Writes raw bytes on a fresh connection and returns everything read until it closes. */
function raw(port: number, ...writes: (string | Buffer)[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(text));
    for (const chunk of writes) socket.write(chunk);
  });
}

describe('the body is read only after routing and authorization', () => {
  it.each([
    ['denied (403)', { authorization: 'Bearer no' }, '/plants', 403, 'Forbidden'],
    ['unauthenticated (401)', {}, '/plants', 401, 'Unauthorized'],
    ['unrouted (404)', { authorization: 'Bearer no' }, '/nope', 404, 'Not Found'],
  ])(
    'a %s 10 MB POST is answered before its body is sent, nothing buffered',
    async (_, headers, path, status, message) => {
      const { port, calls } = await stubbedGateway({ authorizer: DENY });
      const answer = await earlyAnswer(port, path, headers, TEN_MB, 64 * 1024);
      expect(answer).toMatchObject({ status, body: JSON.stringify({ message }) });
      expect(answer.headers['access-control-allow-origin']).toBe('*');
      expect(answer.sent).toBeLessThan(TEN_MB);
      expect(calls['create-plant']).toHaveLength(0);
    },
  );

  it('an authorized request over the payload limit is 413 without the function', async () => {
    const { port, calls } = await stubbedGateway({});
    const answer = await earlyAnswer(port, '/plants', { authorization: 'Bearer a' }, TEN_MB + 1, 1);
    expect(answer).toMatchObject({ status: 413, body: '{"message":"Request Entity Too Large"}' });
    expect(calls.authorizer).toHaveLength(1);
    expect(calls['create-plant']).toHaveLength(0);
  });

  it('a chunked body is 413 as soon as it passes the limit, and exactly the limit passes', async () => {
    const { request, calls } = await stubbedGateway({ api: { maxPayloadBytes: 1000 } });
    const chunked = (size: number) =>
      new ReadableStream({
        start(controller) {
          for (let sent = 0; sent < size; sent += 100) controller.enqueue(new Uint8Array(100));
          controller.close();
        },
      });
    const over = { body: chunked(1100), duplex: 'half', headers: { 'content-type': 'text/plain' } };
    expect((await request(over as RequestInit)).status).toBe(413);
    const at = { body: chunked(1000), duplex: 'half', headers: { 'content-type': 'text/plain' } };
    expect((await request(at as RequestInit)).status).toBe(200);
    expect(calls['create-plant']).toHaveLength(1);
    expect((calls['create-plant'][0]!.body as string).length).toBe(1000);
  });

  it('drops the rest of a refused body as it arrives and keeps the connection usable', async () => {
    const { port, calls } = await stubbedGateway({ authorizer: DENY });
    const body = Buffer.alloc(1024 * 1024, 'x');
    const text = await raw(
      port,
      `POST /plants HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer no\r\nContent-Length: ${body.length}\r\n\r\n`,
      body,
      `GET /nope HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`,
    );
    expect(text.match(/HTTP\/1\.1 \d+/g)).toEqual(['HTTP/1.1 403', 'HTTP/1.1 404']);
    expect(calls.authorizer).toHaveLength(1);
  });

  it('answers Expect: 100-continue only when it wants the body', async () => {
    const { port } = await stubbedGateway({
      authorizer: async (event) => ({
        isAuthorized: (event.headers as Record<string, string>).authorization === 'Bearer yes',
      }),
    });
    const ask = (token: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1');
        let text = '';
        socket.setEncoding('latin1');
        socket.on('error', reject);
        socket.on('close', () => resolve(text));
        socket.on('data', (chunk: string) => {
          text += chunk;
          if (chunk.startsWith('HTTP/1.1 100 ')) socket.write('{}');
        });
        socket.write(
          `POST /plants HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${token}\r\n` +
            'Content-Type: application/json\r\nContent-Length: 2\r\nExpect: 100-continue\r\n' +
            'Connection: close\r\n\r\n',
        );
      });
    expect((await ask('no')).match(/HTTP\/1\.1 \d+/g)).toEqual(['HTTP/1.1 403']);
    expect((await ask('yes')).match(/HTTP\/1\.1 \d+/g)).toEqual(['HTTP/1.1 100', 'HTTP/1.1 200']);
  });

  it('closes the connection when a refused body goes on past the payload limit', async () => {
    const { port } = await stubbedGateway({ authorizer: DENY, api: { maxPayloadBytes: 1000 } });
    const text = await raw(
      port,
      'POST /plants HTTP/1.1\r\nHost: h\r\nAuthorization: Bearer no\r\nContent-Length: 100000\r\n\r\n',
      Buffer.alloc(5000, 'x'),
    );
    // The connection closed although 95,000 declared bytes never came.
    expect(text).toMatch(/^HTTP\/1\.1 403 /);
  });
});

describe('concurrent requests', () => {
  it('past the cap are 429 Too Many Requests, with CORS, nothing called; then served again', async () => {
    let release = () => undefined as void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { request, calls } = await stubbedGateway({
      fn: async (event) => {
        await gate;
        return OK(event);
      },
      options: { maxConcurrentRequests: 2 },
    });
    const held = [request({}), request({})];
    while (calls['create-plant'].length < 2) await sleep(5);
    const refused = await request({ body: 'x', headers: { authorization: 'Bearer other' } });
    expect(refused).toMatchObject({ status: 429, text: '{"message":"Too Many Requests"}' });
    expect(refused.headers.get('access-control-allow-origin')).toBe('*');
    expect(refused.headers.get('apigw-requestid')).toBeTruthy();
    expect(calls.authorizer).toHaveLength(1);
    release();
    expect((await Promise.all(held)).map((answer) => answer.status)).toEqual([200, 200]);
    expect((await request({})).status).toBe(200);
  });
});

describe('the decision cache', () => {
  it('keeps at most its cap of identities, the oldest out', async () => {
    const { request, calls, gw } = await stubbedGateway({
      options: { authCacheMaxEntries: 2 },
    });
    for (const token of ['a', 'b', 'c', 'c', 'b'])
      await request({ headers: { authorization: `Bearer ${token}` } });
    expect(calls.authorizer).toHaveLength(3);
    expect(gw.cachedDecisions).toBe(2);
    await request({ headers: { authorization: 'Bearer a' } });
    expect(calls.authorizer).toHaveLength(4);
  });

  it('drops expired decisions', async () => {
    const { request, gw, advance } = await stubbedGateway({ ttl: 10 });
    for (const token of ['a', 'b', 'c'])
      await request({ headers: { authorization: `Bearer ${token}` } });
    expect(gw.cachedDecisions).toBe(3);
    advance(10_001);
    await request({ headers: { authorization: 'Bearer d' } });
    expect(gw.cachedDecisions).toBe(1);
  });
});

describe('requests Node cannot parse', () => {
  it('are answered 400 as Node does', async () => {
    const { port } = await stubbedGateway({});
    expect(await raw(port, 'GARBAGE\r\n\r\n')).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
  });
});

describe('the header limit', () => {
  const head = (big: number, port = 0) =>
    `POST /plants HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer abc\r\n` +
    `Content-Length: 0\r\nConnection: close\r\nX-Big: ${'a'.repeat(big)}\r\n\r\n`;
  // Request line plus header values, as API Gateway counts them.
  const counted = (big: number, port = 0) =>
    'POST /plants HTTP/1.1'.length + `127.0.0.1:${port}Bearer abc0close`.length + big;
  const atLimit = MAX_REQUEST_LINE_AND_HEADER_BYTES - counted(0);

  it('passes a request of exactly 10,240 counted bytes', async () => {
    const { port } = await stubbedGateway({});
    const big = MAX_REQUEST_LINE_AND_HEADER_BYTES - counted(0, port);
    expect(counted(big, port)).toBe(10_240);
    expect(await raw(port, head(big, port))).toMatch(/^HTTP\/1\.1 200 /);
  });

  it.each([
    ['one byte over the quota', atLimit + 1],
    ["past Node's own parser limit", 20_000],
  ])('%s is a JSON 431 with CORS, a request id and a log line, nothing called', async (_, big) => {
    const { port, calls, logs } = await stubbedGateway({});
    const text = await raw(port, head(big, port));
    const [status, rest] = [text.slice(0, text.indexOf('\r\n')), text];
    expect(status).toBe('HTTP/1.1 431 Request Header Fields Too Large');
    expect(rest).toMatch(/^content-type: application\/json\r$/im);
    expect(rest).toMatch(/^access-control-allow-origin: \*\r$/im);
    expect(rest).toMatch(/^apigw-requestid: \S+=\r$/im);
    expect(rest.endsWith('\r\n\r\n{"message":"Request Header Fields Too Large"}')).toBe(true);
    expect(logs.some((line) => / 431 /.test(line))).toBe(true);
    expect(calls.authorizer).toHaveLength(0);
  });
});
