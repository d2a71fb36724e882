/**
 * What the local gateway refuses before a function runs, over real loopback HTTP (functions are
 * stubs): a `Host` other than its own loopback address (a page that rebound its DNS name), an
 * event over Lambda's 6 MB invoke limit, requests past the stage throttle's token bucket; and
 * what it passes as is: header and query names that are also names of Object's prototype.
 */
import { request as httpRequest } from 'node:http';
import { MAX_INVOKE_PAYLOAD_BYTES } from '../../../lib/definitions/api';
import { TokenBucket } from '../../../lib/local/gateway/throttle';
import { closeGateways, stubbedGateway } from '../../support/gateway';

afterEach(closeGateways);

/** One request with a chosen `Host` (fetch always sends the URL's). */
function withHost(port: number, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, path: '/plants', method: 'GET', headers: { host } },
      (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      },
    );
    req.on('error', reject);
    req.setHeader('authorization', 'Bearer abc');
    req.end();
  });
}

describe('the Host header', () => {
  it.each(['evil.example', 'evil.example:PORT', '127.0.0.1:1', 'localhost'])(
    '%s is 403 Forbidden, nothing called',
    async (host) => {
      const { port, calls, logs } = await stubbedGateway();
      const answer = await withHost(port, host.replace('PORT', String(port)));
      expect(answer).toEqual({ status: 403, body: '{"message":"Forbidden"}' });
      expect(calls.authorizer).toHaveLength(0);
      expect(logs.some((line) => line.startsWith('refused Host '))).toBe(true);
    },
  );

  it.each(['127.0.0.1:PORT', 'localhost:PORT', 'LOCALHOST:PORT'])('%s is served', async (host) => {
    const { port, calls } = await stubbedGateway();
    const answer = await withHost(port, host.replace('PORT', String(port)));
    expect(answer.status).toBe(200);
    expect(calls.authorizer).toHaveLength(1);
  });
});

describe("Lambda's 6 MB invoke limit", () => {
  it('a 7 MB body is 413 Request Entity Too Large without reaching the function', async () => {
    const { request, calls } = await stubbedGateway();
    const answer = await request({
      body: Buffer.alloc(7 * 1024 * 1024, 'a'),
      headers: { 'content-type': 'application/json' },
    });
    expect(answer.status).toBe(413);
    expect(answer.text).toBe('{"message":"Request Entity Too Large"}');
    expect(answer.headers.get('access-control-allow-origin')).toBe('*');
    expect(calls['create-plant']).toHaveLength(0);
  });

  it('a body under 6 MB whose event (base64) is over it is 413 too; one just under passes', async () => {
    const { request, calls } = await stubbedGateway();
    // Binary bodies arrive base64: 4 characters per 3 bytes.
    const over = Buffer.alloc(Math.ceil((MAX_INVOKE_PAYLOAD_BYTES * 3) / 4), 1);
    expect((await request({ body: over })).status).toBe(413);
    expect(calls['create-plant']).toHaveLength(0);
    const under = Buffer.alloc(4 * 1024 * 1024, 1);
    expect((await request({ body: under })).status).toBe(200);
    expect(calls['create-plant']).toHaveLength(1);
  });
});

describe('the stage throttle', () => {
  it('passes a burst of burstLimit, then 429 Too Many Requests with CORS; nothing called', async () => {
    const { request, calls } = await stubbedGateway({
      options: { throttle: { rateLimit: 0, burstLimit: 10 } },
    });
    const answers = await Promise.all(
      Array.from({ length: 15 }, () => request({ method: 'GET', path: '/plants/1' })),
    );
    const refused = answers.filter((a) => a.status === 429);
    expect(answers.filter((a) => a.status === 200)).toHaveLength(10);
    expect(refused).toHaveLength(5);
    expect(refused[0]!.text).toBe('{"message":"Too Many Requests"}');
    expect(refused[0]!.headers.get('access-control-allow-origin')).toBe('*');
    expect(calls.authorizer).toHaveLength(1);
  });

  it('keeps its tokens across a gateway restart (one bucket for the stage)', async () => {
    const bucket = new TokenBucket({ rateLimit: 0, burstLimit: 3 });
    const first = await stubbedGateway({ options: { throttle: bucket } });
    const second = await stubbedGateway({ options: { throttle: bucket } });
    const get = { method: 'GET', path: '/plants/1' };
    expect((await first.request(get)).status).toBe(200);
    expect((await first.request(get)).status).toBe(200);
    expect((await second.request(get)).status).toBe(200);
    expect((await second.request(get)).status).toBe(429);
  });

  it('is off by default', async () => {
    const { request } = await stubbedGateway();
    const answers = await Promise.all(
      Array.from({ length: 30 }, () => request({ method: 'GET', path: '/plants/1' })),
    );
    expect(answers.every((a) => a.status === 200)).toBe(true);
  });

  it('refills at rateLimit tokens a second, up to burstLimit', () => {
    let now = 0;
    const bucket = new TokenBucket({ rateLimit: 10, burstLimit: 10 }, () => now);
    const take = (n: number) => Array.from({ length: n }, () => bucket.take());
    expect(take(11)).toEqual([...Array<boolean>(10).fill(true), false]);
    now += 250; // 2.5 tokens
    expect(take(3)).toEqual([true, true, false]);
    now += 60_000; // never more than the burst
    expect(take(11).filter(Boolean)).toHaveLength(10);
  });
});

describe('names that are also names of Object.prototype', () => {
  it('arrive in the event as they were sent', async () => {
    const { request, calls } = await stubbedGateway();
    await request({
      method: 'GET',
      path: '/plants/1?toString=1&constructor=2&__proto__=3&hasOwnProperty=4&toString=5',
      headers: { constructor: 'c', tostring: 't', valueof: 'v' },
    });
    const event = calls['get-plant'][0]!;
    expect(Object.entries(event.queryStringParameters as object)).toEqual([
      ['toString', '1,5'],
      ['constructor', '2'],
      ['__proto__', '3'],
      ['hasOwnProperty', '4'],
    ]);
    const headers = event.headers as Record<string, string>;
    expect([headers.constructor, headers.tostring, headers.valueof]).toEqual(['c', 't', 'v']);
  });
});
