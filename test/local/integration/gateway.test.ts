/**
 * The local gateway over real loopback HTTP, with functions replaced by in-process stubs so
 * that every answer a function or authorizer can give — malformed, thrown, slow — is covered,
 * and the events it builds can be inspected field by field.
 */
import type { ApiDefinition } from '../../../lib/definitions/api';
import { API } from '../../../lib/definitions/api';
import { closeGateways, stubbedGateway as make, type Stub } from '../../support/gateway';

afterEach(closeGateways);

describe('the integration event (payload 2.0)', () => {
  it('has the documented fields, lower-cased and joined headers, cookies and the authorizer context', async () => {
    const { request, calls } = await make({});
    await request({
      path: '/plants?a=1&b=2&a=3',
      headers: {
        'X-Custom': 'one',
        cookie: 'c1=v1; c2=v2',
        'content-type': 'application/json',
        'User-Agent': 'ua/1',
      },
      body: '{"id":1}',
    });
    const event = calls['create-plant'][0]!;
    expect(event).toMatchObject({
      version: '2.0',
      routeKey: 'POST /plants',
      rawPath: '/plants',
      rawQueryString: 'a=1&b=2&a=3',
      cookies: ['c1=v1', 'c2=v2'],
      queryStringParameters: { a: '1,3', b: '2' },
      body: '{"id":1}',
      isBase64Encoded: false,
      requestContext: {
        accountId: expect.any(String),
        apiId: expect.any(String),
        domainName: expect.stringMatching(/^127\.0\.0\.1:\d+$/),
        http: {
          method: 'POST',
          path: '/plants',
          protocol: 'HTTP/1.1',
          sourceIp: '127.0.0.1',
          userAgent: 'ua/1',
        },
        requestId: expect.stringMatching(/=$/),
        routeKey: 'POST /plants',
        stage: '$default',
        time: expect.stringMatching(/^\d\d\/[A-Z][a-z]{2}\/\d{4}:\d\d:\d\d:\d\d \+0000$/),
        timeEpoch: 1_000_000,
        authorizer: { lambda: { tokenId: 't', name: 'n', scopes: 'plants:write' } },
      },
    });
    const headers = event.headers as Record<string, string>;
    expect(headers['x-custom']).toBe('one');
    expect(headers.cookie).toBeUndefined();
    expect(Object.keys(headers).every((name) => name === name.toLowerCase())).toBe(true);
  });

  it('leaves out empty optional fields', async () => {
    const { request, calls } = await make({});
    await request({});
    const event = calls['create-plant'][0]!;
    for (const field of [
      'body',
      'cookies',
      'queryStringParameters',
      'pathParameters',
      'stageVariables',
    ]) {
      expect(event).not.toHaveProperty(field);
    }
    expect(event).toMatchObject({ rawQueryString: '', isBase64Encoded: false });
  });

  it.each([
    ['application/json; charset=utf-8', false],
    ['text/plain', false],
    ['application/xml', false],
    ['application/merge-patch+json', true],
    ['application/x-www-form-urlencoded', true],
    ['application/octet-stream', true],
  ])('a %s body arrives base64: %p', async (contentType, base64) => {
    const { request, calls } = await make({});
    await request({ headers: { 'content-type': contentType }, body: 'héllo' });
    const event = calls['create-plant'][0]!;
    expect(event.isBase64Encoded).toBe(base64);
    expect(event.body).toBe(base64 ? Buffer.from('héllo').toString('base64') : 'héllo');
  });

  it('passes { lambda: null } when the authorizer gives no context', async () => {
    const { request, calls } = await make({ authorizer: async () => ({ isAuthorized: true }) });
    await request({});
    expect(
      (calls['create-plant'][0]!.requestContext as Record<string, unknown>).authorizer,
    ).toEqual({ lambda: null });
  });
});

describe('the authorizer', () => {
  it('gets a REQUEST event with the identity source, no body', async () => {
    const { request, calls } = await make({});
    await request({ body: '{}', headers: { 'content-type': 'application/json' } });
    expect(calls.authorizer[0]).toMatchObject({
      version: '2.0',
      type: 'REQUEST',
      routeArn: expect.stringMatching(
        /^arn:aws:execute-api:[^:]+:\d+:[^/]+\/\$default\/POST\/plants$/,
      ),
      identitySource: ['Bearer abc'],
      routeKey: 'POST /plants',
      headers: expect.objectContaining({ authorization: 'Bearer abc' }),
    });
    expect(calls.authorizer[0]).not.toHaveProperty('body');
  });

  it.each([
    ['throws', async () => Promise.reject(new Error('boom'))],
    ['answers no isAuthorized', async () => ({ allowed: true })],
    ['answers a string', async () => 'yes'],
    ['answers a non-object context', async () => ({ isAuthorized: true, context: 'x' })],
  ])('that %s is a 500, not cached', async (_, authorizer) => {
    const { request, calls } = await make({ authorizer: authorizer as Stub });
    for (let i = 0; i < 2; i++) {
      const answer = await request({});
      expect(answer).toMatchObject({ status: 500, text: '{"message":"Internal Server Error"}' });
    }
    expect(calls.authorizer).toHaveLength(2);
    expect(calls['create-plant']).toHaveLength(0);
  });

  it('that takes longer than its 10 s limit is a 500', async () => {
    const { request } = await make({
      authorizer: () =>
        new Promise((resolve) => setTimeout(() => resolve({ isAuthorized: true }), 300)),
      api: { authorizer: { ...API.authorizer, timeoutSeconds: 0.05 } },
    });
    expect((await request({})).status).toBe(500);
  });

  it('caches allow and deny per Authorization value until the TTL passes', async () => {
    let allow = true;
    const { request, calls, advance } = await make({
      ttl: 10,
      authorizer: async () => ({ isAuthorized: allow }),
    });
    expect((await request({})).status).toBe(200);
    allow = false;
    expect((await request({})).status).toBe(200);
    expect((await request({ headers: { authorization: 'Bearer other' } })).status).toBe(403);
    expect(calls.authorizer).toHaveLength(2);
    advance(10_001);
    expect((await request({})).status).toBe(403);
    allow = true;
    expect((await request({})).status).toBe(403);
    expect(calls.authorizer).toHaveLength(3);
  });

  it('with a TTL of 0 asks every time', async () => {
    const { request, calls } = await make({ ttl: 0 });
    await request({});
    await request({});
    expect(calls.authorizer).toHaveLength(2);
  });
});

describe('the function answer', () => {
  it.each([
    ['a bare object', { hello: 'world' }, 200, '{"hello":"world"}', 'application/json'],
    ['a bare string', 'plain', 200, 'plain', 'application/json'],
    [
      'statusCode and base64 body',
      { statusCode: 201, body: Buffer.from('bin').toString('base64'), isBase64Encoded: true },
      201,
      'bin',
      null,
    ],
    ['statusCode without body', { statusCode: 204 }, 204, '', null],
  ])('%s', async (_, result, status, text, contentType) => {
    const { request } = await make({ fn: async () => result });
    const answer = await request({});
    expect(answer.status).toBe(status);
    expect(answer.text).toBe(text);
    expect(answer.headers.get('content-type')).toBe(contentType);
  });

  it('sends cookies as set-cookie headers and keeps the function headers', async () => {
    const { request } = await make({
      fn: async () => ({
        statusCode: 200,
        headers: { 'X-Trace': 'abc' },
        cookies: ['a=1', 'b=2; Secure'],
        body: 'ok',
      }),
    });
    const answer = await request({});
    expect(answer.headers.getSetCookie()).toEqual(['a=1', 'b=2; Secure']);
    expect(answer.headers.get('x-trace')).toBe('abc');
  });

  it.each([
    ['throws', async () => Promise.reject(new Error('bug'))],
    ['answers a statusCode that is not a number', async () => ({ statusCode: '200' })],
    ['answers a statusCode out of range', async () => ({ statusCode: 99 })],
    ['answers a non-string body', async () => ({ statusCode: 200, body: { a: 1 } })],
    ['answers an object-valued header', async () => ({ statusCode: 200, headers: { a: {} } })],
  ])('that %s is a 500', async (_, fn) => {
    const { request } = await make({ fn: fn as Stub });
    expect(await request({})).toMatchObject({
      status: 500,
      text: '{"message":"Internal Server Error"}',
    });
  });

  it('counts its timeouts from when the invocation starts, not from a wait for a sandbox', async () => {
    const late = (answer: unknown) =>
      new Promise((resolve) => setTimeout(() => resolve(answer), 300));
    const { request } = await make({
      api: {
        integrationTimeoutSeconds: 0.05,
        authorizer: { ...API.authorizer, timeoutSeconds: 0.05 },
      },
      options: {
        // Both wait 300 ms for a sandbox (six times the timeouts), then answer at once.
        invoke: async (name, _, onStart) => {
          const answer = await late(
            name === 'authorizer' ? { isAuthorized: true } : { statusCode: 201 },
          );
          onStart?.();
          return answer;
        },
      },
    });
    expect((await request({})).status).toBe(201);
  });

  it('past the integration timeout is a 503', async () => {
    const { request } = await make({
      fn: () => new Promise((resolve) => setTimeout(() => resolve({ statusCode: 200 }), 300)),
      api: { integrationTimeoutSeconds: 0.05 },
    });
    expect(await request({})).toMatchObject({
      status: 503,
      text: '{"message":"Service Unavailable"}',
    });
  });
});

/** Routes with path variables, all served by the `fn` stub. */
const ROUTED: Partial<ApiDefinition> = {
  routes: [
    { method: 'POST', path: '/plants', function: 'create-plant', authorized: true },
    { method: 'GET', path: '/plants', function: 'create-plant', authorized: true },
    { method: 'GET', path: '/plants/{id}', function: 'create-plant', authorized: true },
    { method: 'DELETE', path: '/plants/{id}', function: 'create-plant', authorized: true },
    { method: 'GET', path: '/files/{path+}', function: 'create-plant', authorized: false },
  ],
};

describe('routes with path variables', () => {
  it('delivers routeKey as defined, rawPath and rawQueryString as sent, decoded pathParameters', async () => {
    const { request, calls } = await make({ api: ROUTED });
    const answer = await request({ method: 'GET', path: '/plants/%34%32?x=a%20b&x=c&y' });
    expect(answer.status).toBe(200);
    const event = calls['create-plant'][0]!;
    expect(event).toMatchObject({
      routeKey: 'GET /plants/{id}',
      rawPath: '/plants/%34%32',
      rawQueryString: 'x=a%20b&x=c&y',
      queryStringParameters: { x: 'a b,c', y: '' },
      pathParameters: { id: '42' },
      requestContext: {
        routeKey: 'GET /plants/{id}',
        http: expect.objectContaining({ method: 'GET', path: '/plants/%34%32' }),
      },
    });
  });

  it('gives the authorizer the same routeKey and pathParameters, and a routeArn with the real path', async () => {
    const { request, calls } = await make({ api: ROUTED });
    await request({ method: 'DELETE', path: '/plants/-7' });
    expect(calls.authorizer[0]).toMatchObject({
      routeKey: 'DELETE /plants/{id}',
      rawPath: '/plants/-7',
      pathParameters: { id: '-7' },
      routeArn: expect.stringMatching(/\/\$default\/DELETE\/plants\/-7$/),
    });
  });

  it('passes a greedy variable with its slashes; leaves pathParameters out without variables', async () => {
    const { request, calls } = await make({ api: ROUTED });
    await request({ method: 'GET', path: '/files/a/b%2Fc/d.txt', headers: { authorization: '' } });
    await request({ method: 'GET', path: '/plants' });
    expect(calls['create-plant'][0]).toMatchObject({
      routeKey: 'GET /files/{path+}',
      pathParameters: { path: 'a/b/c/d.txt' },
    });
    expect(calls['create-plant'][1]).toMatchObject({ routeKey: 'GET /plants' });
    expect(calls['create-plant'][1]).not.toHaveProperty('pathParameters');
  });

  it.each([
    ['PUT', '/plants/1'],
    ['POST', '/plants/1'],
    ['DELETE', '/plants'],
    ['GET', '/plants/'],
    ['GET', '/plants/1/'],
    ['PATCH', '/plants'],
    ['GET', '/files/'],
  ])('%s %s is 404 Not Found (no 405), nothing called', async (method, path) => {
    const { request, calls } = await make({ api: ROUTED });
    const answer = await request({ method, path });
    expect(answer).toMatchObject({ status: 404, text: '{"message":"Not Found"}' });
    expect(answer.headers.get('access-control-allow-origin')).toBe('*');
    expect(calls.authorizer).toHaveLength(0);
    expect(calls['create-plant']).toHaveLength(0);
  });

  it('passes a malformed percent-escape in a path variable on as sent', async () => {
    const { request, calls } = await make({ api: ROUTED });
    expect((await request({ method: 'GET', path: '/plants/%E0%A4%A' })).status).toBe(200);
    expect(calls['create-plant'][0]!.pathParameters).toEqual({ id: '%E0%A4%A' });
  });
});

describe('CORS and request ids', () => {
  it('adds the allowed origin and a request id to every answer, gateway errors included', async () => {
    const { request } = await make({ authorizer: async () => ({ isAuthorized: false }) });
    for (const init of [{}, { path: '/nope' }, { headers: { authorization: '' } }]) {
      const answer = await request({
        ...init,
        headers: { origin: 'https://x.example', ...(init as { headers?: object }).headers },
      });
      expect(answer.headers.get('access-control-allow-origin')).toBe('*');
      expect(answer.headers.get('apigw-requestid')).toBeTruthy();
    }
  });

  it('answers a preflight without calling anything', async () => {
    const { request, calls } = await make({});
    const answer = await request({
      method: 'OPTIONS',
      headers: {
        origin: 'https://x.example',
        'access-control-request-method': 'POST',
        authorization: '',
      },
    });
    expect(answer.status).toBe(204);
    expect(calls.authorizer).toHaveLength(0);
    expect(calls['create-plant']).toHaveLength(0);
  });

  it('an OPTIONS request that is not a preflight has no route: 404', async () => {
    const { request } = await make({});
    expect((await request({ method: 'OPTIONS' })).status).toBe(404);
  });
});
