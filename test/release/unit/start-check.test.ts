/**
 * The deploy job's check that the functions start (`npm run release -- check-start`), against a
 * real HTTP server standing for the gateway: a 403 to the made-up token passes; a 500 (the
 * authorizer did not start) is asked again, then fails; another status or no answer fails with
 * what came; the outputs file must name one ApiUrl. The real authorizer: test/operator/e2e/smoke.test.ts.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { apiUrlFromOutputs, checkStart, MADE_UP_TOKEN } from '../../../lib/release/start-check';

let server: Server;
let url: string;
let answers: number[] = [];
const seen: IncomingMessage[] = [];
beforeAll(async () => {
  server = createServer((request, response) => {
    seen.push(request);
    response.writeHead(answers.shift() ?? 403, { 'content-type': 'application/json' });
    response.end('{"message":"Forbidden"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));
beforeEach(() => {
  seen.length = 0;
  answers = [];
});

it('passes when the authorizer refuses the made-up token (403), asked once', async () => {
  expect(await checkStart(url, { pauseMs: 1 })).toEqual({
    ok: true,
    line: 'The functions start: the authorizer refused a made-up token (403), as it must.',
  });
  expect(
    seen.map((request) => [request.method, request.url, request.headers.authorization]),
  ).toEqual([['GET', '/plants/1', `Bearer ${MADE_UP_TOKEN}`]]);
});

it('asks again after a 500, and passes once the authorizer answers', async () => {
  answers = [500, 403];
  expect((await checkStart(url, { pauseMs: 1 })).ok).toBe(true);
  expect(seen).toHaveLength(2);
});

it('fails after every attempt answered 500, saying so and not printing the URL', async () => {
  answers = [500, 500, 500];
  const verdict = await checkStart(url, { pauseMs: 1 });
  expect(verdict.ok).toBe(false);
  expect(verdict.line).toMatch(
    /^The authorizer did not refuse a made-up token with 403: HTTP 500\./,
  );
  expect(verdict.line).not.toContain('127.0.0.1');
  expect(seen).toHaveLength(3);
});

it('fails at once on another status: a 401 means the token never reached the authorizer', async () => {
  answers = [401];
  const verdict = await checkStart(url.replace(/\/$/, ''), { pauseMs: 1 });
  expect(verdict).toMatchObject({ ok: false });
  expect(verdict.line).toContain('HTTP 401');
  expect(seen).toHaveLength(1);
});

it('fails when nothing answers', async () => {
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise((resolve) => closed.close(resolve));
  const verdict = await checkStart(`http://127.0.0.1:${port}/`, { attempts: 2, pauseMs: 1 });
  expect(verdict.ok).toBe(false);
  expect(verdict.line).toMatch(/no answer \(.*ECONNREFUSED/);
});

it("reads the one ApiUrl of cdk deploy's outputs file, and refuses anything else", () => {
  const outputs = { 'PlantStore-dev': { ApiUrl: 'https://a.example/', Version: '1.2.0' } };
  expect(apiUrlFromOutputs(JSON.stringify(outputs))).toBe('https://a.example/');
  expect(() => apiUrlFromOutputs('{')).toThrow('not JSON');
  expect(() => apiUrlFromOutputs('{}')).toThrow('names 0 ApiUrl outputs');
  expect(() =>
    apiUrlFromOutputs(JSON.stringify({ ...outputs, Other: { ApiUrl: 'https://b.example/' } })),
  ).toThrow('names 2 ApiUrl outputs');
});
