/** Route selection, without sockets: path variables, greedy variables, specificity, decoding. */
import type { RouteDefinition } from '../../../lib/definitions/api';
import { Router } from '../../../lib/local/gateway/router';

const route = (method: RouteDefinition['method'], path: string): RouteDefinition => ({
  method,
  path,
  function: 'create-plant',
  authorized: true,
});

const ROUTES = [
  route('POST', '/plants'),
  route('GET', '/plants'),
  route('GET', '/plants/{id}'),
  route('DELETE', '/plants/{id}'),
  route('GET', '/plants/featured'),
  route('GET', '/plants/{id}/notes/{note}'),
  route('GET', '/files/{path+}'),
  route('GET', '/files/{dir}/latest'),
  route('GET', '/{proxy+}'),
];
const router = new Router(ROUTES);
const key = (method: string, path: string) => {
  const match = router.match(method, path);
  return match && { routeKey: `${match.route.method} ${match.route.path}`, ...match };
};

describe('the router', () => {
  it.each([
    ['GET', '/plants', 'GET /plants'],
    ['POST', '/plants', 'POST /plants'],
    ['GET', '/plants/42', 'GET /plants/{id}'],
    ['DELETE', '/plants/42', 'DELETE /plants/{id}'],
    ['GET', '/plants/featured', 'GET /plants/featured'],
    ['GET', '/plants/7/notes/3', 'GET /plants/{id}/notes/{note}'],
    ['GET', '/files/a', 'GET /files/{path+}'],
    ['GET', '/files/a/b/c', 'GET /files/{path+}'],
    ['GET', '/files/a/latest', 'GET /files/{dir}/latest'],
    ['GET', '/plants/42/other', 'GET /{proxy+}'],
    ['GET', '/plants/', 'GET /{proxy+}'],
  ])('%s %s → %s (the most specific route)', (method, path, routeKey) => {
    expect(key(method, path)?.routeKey).toBe(routeKey);
  });

  it.each([
    ['PUT', '/plants'],
    ['POST', '/plants/42'],
    ['DELETE', '/plants'],
    ['DELETE', '/plants/'],
    ['POST', '/plants/'],
    ['DELETE', '/plants/42/'],
    ['DELETE', '/plants//'],
    ['HEAD', '/plants/42'],
    ['GET', '*'],
  ])('%s %s matches nothing (404, never 405)', (method, path) => {
    expect(router.match(method, path)).toBeUndefined();
  });

  it('without the catch-all, a trailing slash or an empty segment does not match', () => {
    const strict = new Router(ROUTES.filter((r) => r.path !== '/{proxy+}'));
    for (const path of ['/plants/', '/plants/42/', '/plants//', '//plants', '/files/'])
      expect(strict.match('GET', path)).toBeUndefined();
  });

  it('leaves pathParameters out for routes without variables', () => {
    expect(router.match('GET', '/plants')).toEqual({ route: ROUTES[1] });
    expect(router.match('GET', '/plants/featured')).not.toHaveProperty('pathParameters');
  });

  it('percent-decodes path parameters; a greedy one keeps its slashes', () => {
    expect(key('GET', '/plants/%34%32')?.pathParameters).toEqual({ id: '42' });
    expect(key('GET', '/plants/h%C3%A9llo%20x+y')?.pathParameters).toEqual({ id: 'héllo x+y' });
    expect(key('GET', '/plants/a%2Fb')).toMatchObject({
      routeKey: 'GET /plants/{id}',
      pathParameters: { id: 'a/b' },
    });
    expect(key('GET', '/files/a/b%20c/')?.pathParameters).toEqual({ path: 'a/b c/' });
    expect(key('GET', '/plants/7/notes/%2D1')?.pathParameters).toEqual({ id: '7', note: '-1' });
  });

  it('passes a malformed percent-escape on as sent', () => {
    expect(key('GET', '/plants/%ZZ1')?.pathParameters).toEqual({ id: '%ZZ1' });
    expect(key('GET', '/plants/%FF')?.pathParameters).toEqual({ id: '%FF' });
    expect(key('GET', '/plants/1%')?.pathParameters).toEqual({ id: '1%' });
  });

  it('rejects route paths API Gateway would not deploy', () => {
    expect(() => new Router([route('GET', '/a/{rest+}/b')])).toThrow(/greedy/);
    expect(() => new Router([route('GET', '/a/{id')])).toThrow(/malformed/);
    expect(() => new Router([route('GET', 'plants')])).toThrow(/start with/);
  });
});
