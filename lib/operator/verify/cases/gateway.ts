/**
 * The answers the gateway gives itself (authorization, routing, CORS), and what the service
 * answers a token for each scope, learnt from requests that cannot change anything.
 */
import { randomBytes } from 'node:crypto';
import { API } from '../../../definitions/api';
import { check, expectThat, gatewayBody, type VerifyCase } from '../context';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** A method and routed path that no route serves (HTTP API has no 405). */
function unroutedMethod(): [string, string] {
  for (const route of API.routes) {
    const missing = METHODS.find(
      (method) => !API.routes.some((r) => r.path === route.path && r.method === method),
    );
    if (missing)
      return [
        missing,
        route.path
          .split('/')
          .map((part) => (part.startsWith('{') ? '1' : part))
          .join('/'),
      ];
  }
  return ['PUT', '/plants'];
}

const unknownToken = () => `pst_${randomBytes(32).toString('base64url')}`;
const ORIGIN = 'https://verify.example';

export const GATEWAY_CASES: readonly VerifyCase[] = [
  {
    name: 'gateway: no Authorization header is 401 Unauthorized',
    needs: [],
    changes: false,
    run: async (t) =>
      void check(await t.send('GET', '/plants', { token: null }), {
        status: 401,
        text: gatewayBody('Unauthorized'),
      }),
  },
  {
    name: 'gateway: an empty Authorization header is 401 Unauthorized',
    needs: [],
    changes: false,
    run: async (t) =>
      void check(await t.send('GET', '/plants', { token: null, headers: { authorization: '' } }), {
        status: 401,
        text: gatewayBody('Unauthorized'),
      }),
  },
  {
    name: 'gateway: an unknown token is 403 Forbidden',
    needs: [],
    changes: false,
    run: async (t) =>
      void check(await t.send('GET', '/plants', { token: unknownToken() }), {
        status: 403,
        text: gatewayBody('Forbidden'),
      }),
  },
  {
    name: 'gateway: a malformed token is 403 Forbidden',
    needs: [],
    changes: false,
    run: async (t) =>
      void check(await t.send('GET', '/plants/1', { token: 'not-a-token' }), {
        status: 403,
        text: gatewayBody('Forbidden'),
      }),
  },
  {
    name: 'gateway: an unknown path is 404 Not Found',
    needs: [],
    changes: false,
    run: async (t) =>
      void check(await t.send('GET', '/verify-no-such-route'), {
        status: 404,
        text: gatewayBody('Not Found'),
      }),
  },
  {
    name: 'gateway: a trailing slash is 404 Not Found',
    needs: [],
    changes: false,
    run: async (t) =>
      void check(await t.send('GET', '/plants/'), { status: 404, text: gatewayBody('Not Found') }),
  },
  {
    name: `gateway: ${unroutedMethod().join(' ')} (no such route) is 404 Not Found`,
    needs: [],
    changes: false,
    run: async (t) => {
      const [method, path] = unroutedMethod();
      check(await t.send(method, path), { status: 404, text: gatewayBody('Not Found') });
    },
  },
  {
    name: 'gateway: a CORS preflight is 204, allowing every routed method and If-Match',
    needs: [],
    changes: false,
    run: async (t) => {
      const answer = check(
        await t.send('OPTIONS', '/plants/1', {
          token: null,
          headers: {
            origin: ORIGIN,
            'access-control-request-method': 'PATCH',
            'access-control-request-headers': 'authorization,if-match',
          },
        }),
        { status: 204, text: '' },
      );
      const methods = (answer.headers.get('access-control-allow-methods') ?? '').toUpperCase();
      const headers = (answer.headers.get('access-control-allow-headers') ?? '').toLowerCase();
      const missing = [
        ...API.cors.allowMethods.filter((m) => !methods.includes(m)),
        ...API.cors.allowHeaders.filter((h) => !headers.includes(h)),
      ];
      expectThat(
        missing.length === 0,
        `allow-methods and allow-headers naming ${[...API.cors.allowMethods, ...API.cors.allowHeaders].join(',')}`,
        `${methods} / ${headers}`,
      );
    },
  },
  {
    name: "gateway: CORS headers are on the gateway's own answers too",
    needs: [],
    changes: false,
    run: async (t) =>
      void check(await t.send('GET', '/plants', { token: null, headers: { origin: ORIGIN } }), {
        status: 401,
        headers: { 'access-control-allow-origin': /\S/ },
      }),
  },
];
