/**
 * The deploy job's check that the functions start (`npm run release -- check-start`), against a
 * real HTTP server standing for the gateway: a 403 to a made-up token (new each time) passes; a 500 (the
 * authorizer did not start) is asked again, then fails; another status or no answer fails with
 * what came; the outputs file must name one ApiUrl. The real authorizer: test/operator/e2e/smoke.test.ts.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TOKEN_FORMAT } from '../../../lambda/tokens/token';
import { apiUrlFromOutputs, checkStart, httpProbe } from '../../../lib/release/start-check';

let server: Server;
let url: string;
let answers: number[] = [];
const seen: IncomingMessage[] = [];
beforeAll(async () => {
  server = createServer((request, response) => {
    seen.push(request);
    // No keep-alive: nothing of this server outlives the suite.
    response.writeHead(answers.shift() ?? 403, {
      'content-type': 'application/json',
      connection: 'close',
    });
    response.end('{"message":"Forbidden"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(() => {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  seen.length = 0;
  answers = [];
});

it('passes when the authorizer refuses the made-up token (403), asked once', async () => {
  expect(await checkStart(url, { pauseMs: 1 })).toEqual({
    ok: true,
    line: 'The functions start: the authorizer refused a made-up token (403), as it must.',
  });
  expect(seen.map((request) => [request.method, request.url])).toEqual([['GET', '/plants/1']]);
});

it('sends a new made-up token each time, shaped as a real one (so the authorizer reads its table, and no cached denial answers)', async () => {
  await checkStart(url, { pauseMs: 1 });
  await checkStart(url, { pauseMs: 1 });
  const tokens = seen.map((request) => /^Bearer (.+)$/.exec(request.headers.authorization!)![1]!);
  expect(tokens).toHaveLength(2);
  expect(tokens[0]).not.toBe(tokens[1]);
  for (const token of tokens) expect(token).toMatch(TOKEN_FORMAT);
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

it('fails when nothing answers, naming the error by its code only', async () => {
  let asked = 0;
  const probe = async () => (asked++, { error: 'ECONNREFUSED' });
  const verdict = await checkStart('https://api.example/', { probe, attempts: 2, pauseMs: 1 });
  expect(verdict.ok).toBe(false);
  expect(verdict.line).toContain('no answer (ECONNREFUSED)');
  expect(asked).toBe(2);
});

it('tells a real connection failure by its code, without the host', async () => {
  // Port 0 can never be connected to: refused at once, with no name to look up.
  expect(await httpProbe('http://127.0.0.1:0/plants/1')).toEqual({ error: 'ECONNREFUSED' });
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
