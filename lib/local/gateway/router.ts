/**
 * Route selection as HTTP API does it: a route is a method and a path whose segments are
 * literal, `{name}` (one segment) or `{name+}` (greedy, the rest of the path); the most specific
 * matching route wins; nothing matches → the caller answers 404 (HTTP API has no 405).
 */
import type { RouteDefinition } from '../../definitions/api';

/** The chosen route and its decoded path variables (left out when the route has none). */
export interface RouteMatch {
  readonly route: RouteDefinition;
  readonly pathParameters?: Readonly<Record<string, string>>;
}

/** Literal segments outrank `{name}`, which outranks `{name+}`; the lower rank wins. */
type Segment =
  | { readonly rank: 0; readonly text: string }
  | { readonly rank: 1; readonly name: string }
  | { readonly rank: 2; readonly name: string };

interface CompiledRoute {
  readonly route: RouteDefinition;
  readonly segments: readonly Segment[];
}

const VARIABLE = /^\{([A-Za-z0-9_.-]+)(\+?)\}$/;

/** Splits a route path into segments, rejecting what API Gateway would not deploy. */
function compile(route: RouteDefinition): CompiledRoute {
  if (!route.path.startsWith('/')) throw new Error(`route path must start with /: ${route.path}`);
  const parts = route.path.slice(1).split('/');
  const segments = parts.map((part, index): Segment => {
    const variable = VARIABLE.exec(part);
    if (!variable) {
      if (/[{}]/.test(part)) throw new Error(`malformed path variable in route ${route.path}`);
      return { rank: 0, text: part };
    }
    if (variable[2] !== '+') return { rank: 1, name: variable[1]! };
    if (index !== parts.length - 1)
      throw new Error(`a greedy path variable must end the route path: ${route.path}`);
    return { rank: 2, name: variable[1]! };
  });
  return { route, segments };
}

/**
 * Percent-decodes one path value as API Gateway does before the integration sees it. A value
 * that is not valid percent-encoded UTF-8 is passed on as sent (the function then judges it).
 */
export function decodePathValue(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** Matches a raw request path against one route's segments. */
function matchSegments(
  segments: readonly Segment[],
  parts: readonly string[],
): Record<string, string> | undefined {
  const parameters: Record<string, string> = {};
  for (const [index, segment] of segments.entries()) {
    if (segment.rank === 2) {
      const rest = parts.slice(index).join('/');
      if (rest === '') return undefined;
      parameters[segment.name] = decodePathValue(rest);
      return parameters;
    }
    const part = parts[index];
    if (part === undefined) return undefined;
    if (segment.rank === 1) {
      if (part === '') return undefined;
      parameters[segment.name] = decodePathValue(part);
    } else if (decodePathValue(part) !== segment.text) return undefined;
  }
  return parts.length === segments.length ? parameters : undefined;
}

/** True when `a` is more specific than `b`: at the first segment that differs, the lower rank. */
function moreSpecific(a: CompiledRoute, b: CompiledRoute): boolean {
  const length = Math.max(a.segments.length, b.segments.length);
  for (let i = 0; i < length; i++) {
    const ra = a.segments[i]?.rank ?? 3;
    const rb = b.segments[i]?.rank ?? 3;
    if (ra !== rb) return ra < rb;
  }
  return false;
}

/** The routes of one API, compiled once. */
export class Router {
  private readonly routes: readonly CompiledRoute[];

  constructor(routes: readonly RouteDefinition[]) {
    this.routes = routes.map(compile);
  }

  /** The most specific route for `method` and the raw (undecoded) request path. */
  match(method: string, rawPath: string): RouteMatch | undefined {
    if (!rawPath.startsWith('/')) return undefined;
    const parts = rawPath.slice(1).split('/');
    let best: { compiled: CompiledRoute; parameters: Record<string, string> } | undefined;
    for (const compiled of this.routes) {
      if (compiled.route.method !== method) continue;
      const parameters = matchSegments(compiled.segments, parts);
      if (parameters && (!best || moreSpecific(compiled, best.compiled)))
        best = { compiled, parameters };
    }
    if (!best) return undefined;
    const hasVariables = best.compiled.segments.some((segment) => segment.rank !== 0);
    return {
      route: best.compiled.route,
      ...(hasVariables ? { pathParameters: best.parameters } : {}),
    };
  }
}
