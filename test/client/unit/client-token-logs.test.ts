/**
 * `@plant-store/client` keeps its token to itself: a malformed or missing token is refused
 * without showing it, and the log lines (retries as warnings, each request at debug) and errors
 * never carry it.
 */
import { BadRequestError, PlantStore, type Logger } from '@plant-store/client';
import { fakeFetch, fakeStore, TEST_TOKEN } from '../../support/fake-fetch';

describe('the token', () => {
  it.each([
    ['a line break', `${TEST_TOKEN}\r\nx-injected: 1`],
    ['a space', `${TEST_TOKEN} `],
    ['a non-ASCII letter', `${TEST_TOKEN}é`],
  ])('with %s is refused when the client is built, without showing it', (_, token) => {
    let error: unknown;
    try {
      new PlantStore({ baseUrl: 'https://api.example', token });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toMatch(/^token must be a bearer token/);
    expect((error as Error).message).not.toContain(TEST_TOKEN);
  });

  it.each([
    ['unset (an environment variable that is not)', undefined],
    ['empty', ''],
  ])('%s is refused in one line that says no token was given', (_, token) => {
    expect(
      () => new PlantStore({ baseUrl: 'https://api.example', token: token as string }),
    ).toThrow(new TypeError('no token given: token must be a bearer token (pst_…)'));
  });
});

describe('logging', () => {
  const recorder = () => {
    const lines: [string, string][] = [];
    const logger: Logger = {
      debug: (message) => lines.push(['debug', message]),
      info: (message) => lines.push(['info', message]),
      warn: (message) => lines.push(['warn', message]),
      error: (message) => lines.push(['error', message]),
    };
    return { logger, lines };
  };

  it('a retry is a warning that says why and how long it waits; the token is never in a line', async () => {
    const { logger, lines } = recorder();
    const { fetch } = fakeFetch(
      { status: 503, body: '{"error":503,"message":"x"}', headers: { 'apigw-requestid': 'q1' } },
      new TypeError('fetch failed', { cause: { code: 'ECONNRESET' } }),
      { status: 200, body: '{"id":1,"name":"a"}' },
    );
    const client = new PlantStore({
      baseUrl: 'https://api.example',
      token: TEST_TOKEN,
      fetch,
      retry: { baseDelayMs: 1 },
      logger,
    });
    await client.getPlant(1);
    expect(lines.map(([level]) => level)).toEqual(['warn', 'warn']);
    expect(lines[0]![1]).toMatch(
      /^plant-store: GET https:\/\/api.example\/plants\/1 answered 503 \(apigw-requestid q1\); retrying in \d+ ms \(attempt 2 of 4\)$/,
    );
    expect(lines[1]![1]).toMatch(/got no answer \(fetch failed: ECONNRESET\); retrying in \d+ ms/);
    expect(JSON.stringify(lines)).not.toContain(TEST_TOKEN.slice(4));
  });

  it('debug shows each request and answer line; off shows nothing', async () => {
    const { logger, lines } = recorder();
    const { fetch } = fakeFetch({ status: 200, body: '{"id":1,"name":"a"}' });
    const options = { baseUrl: 'https://api.example', token: TEST_TOKEN, fetch, logger };
    await new PlantStore({ ...options, logLevel: 'debug' }).getPlant(1);
    expect(lines.map(([level, line]) => `${level} ${line.replace(/\d+ ms/, 'N ms')}`)).toEqual([
      'debug plant-store: GET https://api.example/plants/1 (attempt 1 of 4)',
      'debug plant-store: GET https://api.example/plants/1 answered 200 in N ms',
    ]);
    lines.length = 0;
    const failing = fakeFetch({ status: 503, body: '{"error":503,"message":"x"}' });
    await new PlantStore({
      ...options,
      fetch: failing.fetch,
      logLevel: 'off',
      retry: { retries: 1, baseDelayMs: 1 },
    })
      .getPlant(1)
      .catch(() => undefined);
    expect(lines).toEqual([]);
    expect(() => new PlantStore({ ...options, logLevel: 'loud' as 'off' })).toThrow(TypeError);
  });

  it('an error never carries the token, even when a body repeats it', async () => {
    const { fetch } = fakeFetch({
      status: 400,
      body: JSON.stringify({ error: 400, message: `bad header Bearer ${TEST_TOKEN}` }),
    });
    const error = await fakeStore(fetch)
      .getPlant(1)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as Error).message).not.toContain(TEST_TOKEN);
  });
});
