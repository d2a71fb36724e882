/**
 * What the tests expect of the routes, computed from the API definition (so a new operation
 * changes the expectations, not the tests): the methods a preflight allows, and requests that
 * reach no route.
 */
import { API, type RouteDefinition } from '../../lib/definitions/api';

const METHODS: readonly RouteDefinition['method'][] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** `Access-Control-Allow-Methods` as the gateway answers a preflight: every routed method. */
export const ALLOWED_METHODS = [...new Set(API.routes.map((route) => route.method))].join(',');

/** `Access-Control-Allow-Headers` as the gateway answers a preflight: the API's allowed headers. */
export const ALLOWED_HEADERS = API.cors.allowHeaders.join(',');

/** A route's path with each `{variable}` given the value `1`. */
export function samplePath(path: string): string {
  return path.replace(/\{[^}]+\}/g, '1');
}

/** `[method, path]` for each method that no route serves on a routed path (each a 404). */
export function unroutedMethods(): [string, string][] {
  const paths = [...new Set(API.routes.map((route) => route.path))];
  return paths.flatMap((path) =>
    METHODS.filter(
      (method) => !API.routes.some((route) => route.path === path && route.method === method),
    ).map((method): [string, string] => [method, samplePath(path)]),
  );
}
