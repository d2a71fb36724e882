/**
 * `@plant-store/client`'s `baseUrl`: every request carries the token, so the client refuses, when
 * it is built, a URL that would send it in clear text off this machine (unless
 * `allowInsecureHttp` says the network is private), or one whose query, fragment or credentials
 * would go astray; the refusal is one line and never shows the token.
 */
import { PlantStore } from '@plant-store/client';
import { fakeFetch, TEST_TOKEN } from '../../support/fake-fetch';

/** The URL the client's first request goes to, for this `baseUrl`. */
async function firstUrl(baseUrl: string, allowInsecureHttp?: boolean) {
  const { fetch, requests } = fakeFetch({ status: 200, body: '{"id":5,"name":"a"}' });
  await new PlantStore({ baseUrl, token: TEST_TOKEN, fetch, allowInsecureHttp }).getPlant(5);
  return requests[0]!.url;
}

/** The TypeError building a client with this `baseUrl` throws (the test fails when none). */
function refusal(baseUrl: string, allowInsecureHttp?: boolean): TypeError {
  try {
    new PlantStore({ baseUrl, token: TEST_TOKEN, allowInsecureHttp });
  } catch (error) {
    expect(error).toBeInstanceOf(TypeError);
    return error as TypeError;
  }
  throw new Error(`${baseUrl} was accepted`);
}

it.each([
  ['https://api.example', 'https://api.example/plants/5'],
  [
    'https://abc.execute-api.eu-west-1.amazonaws.com/prod/',
    'https://abc.execute-api.eu-west-1.amazonaws.com/prod/plants/5',
  ],
  ['http://127.0.0.1:3000', 'http://127.0.0.1:3000/plants/5'],
  ['http://127.8.9.10:3000/', 'http://127.8.9.10:3000/plants/5'],
  ['http://localhost:3000', 'http://localhost:3000/plants/5'],
  ['http://[::1]:3000', 'http://[::1]:3000/plants/5'],
])('%s is accepted: requests go to %s', async (baseUrl, url) => {
  await expect(firstUrl(baseUrl)).resolves.toBe(url);
});

it.each([
  [
    'http://api.example.com',
    /^baseUrl must be https, or http to a loopback host .*, not http:\/\/api\.example\.com$/,
  ],
  ['http://10.0.0.5:8080', /not http:\/\/10\.0\.0\.5:8080$/],
  ['http://localhost.example.com', /not http:\/\/localhost\.example\.com$/],
  ['http://127.0.0.1.nip.io', /not http:\/\/127\.0\.0\.1\.nip\.io$/],
  ['ftp://127.0.0.1', /not ftp:\/\/127\.0\.0\.1$/],
  ['localhost:3000', /^baseUrl must be https, .*, not localhost:$/],
  ['127.0.0.1:3000', /^baseUrl must be an absolute URL/],
  ['api.example.com', /^baseUrl must be an absolute URL/],
])('%s is refused', (baseUrl, message) => {
  expect(refusal(baseUrl).message).toMatch(message);
});

it.each([
  ['a user name and password', `https://me:${TEST_TOKEN}@api.example`, /user name or password/],
  ['a user name', `https://${TEST_TOKEN}@api.example`, /user name or password/],
  ['a query', `https://api.example/?token=${TEST_TOKEN}`, /query or a fragment/],
  ['an empty query', 'https://api.example/?', /query or a fragment/],
  ['a fragment', `https://api.example/#${TEST_TOKEN}`, /query or a fragment/],
  ['an empty fragment', 'https://api.example#', /query or a fragment/],
  ['no scheme, the token in its place', `${TEST_TOKEN}`, /absolute URL/],
])('a baseUrl with %s is refused in one line that never shows it', (_, baseUrl, message) => {
  for (const allowInsecureHttp of [false, true]) {
    const error = refusal(baseUrl, allowInsecureHttp);
    expect(error.message).toMatch(message);
    expect(error.message).not.toContain('\n');
    expect(error.message).not.toContain(TEST_TOKEN.slice(4));
    expect(error.cause).toBeUndefined();
  }
});

it('allowInsecureHttp allows http to any host, and nothing else', async () => {
  await expect(firstUrl('http://plants.internal:8080/v1', true)).resolves.toBe(
    'http://plants.internal:8080/v1/plants/5',
  );
  expect(refusal('ftp://plants.internal', true).message).toMatch(/not ftp:\/\/plants\.internal$/);
});
