/**
 * The HTTP API, defined once: its routes (each API function's `operation` in the registry), the
 * authorizer and CORS. The stack deploys it and the local runtime serves it, so the two cannot
 * drift; an infra test compares the template with it.
 */
import {
  FUNCTION_NAMES,
  FUNCTIONS,
  type FunctionName,
  type OperationDefinition,
} from './functions';

/**
 * One route: a method, a path (`{name}` matches one path segment, as API Gateway writes it),
 * the function behind it and whether it is authorized.
 */
export interface RouteDefinition {
  readonly method: OperationDefinition['method'];
  readonly path: string;
  readonly function: FunctionName;
  readonly authorized: boolean;
}

/** Everything the gateway does before and around a function. */
export interface ApiDefinition {
  readonly routes: readonly RouteDefinition[];
  readonly authorizer: {
    readonly function: FunctionName;
    /** As API Gateway writes it. */
    readonly identitySource: string;
    /** The header the identity source names, lower-cased as payload 2.0 delivers it. */
    readonly header: string;
    /** Default seconds a decision is cached per identity-source value (0 turns caching off). */
    readonly defaultCacheTtlSeconds: number;
    /** API Gateway's own limit for an authorizer's answer. */
    readonly timeoutSeconds: number;
  };
  readonly cors: {
    /** Default allowed origins. */
    readonly defaultAllowOrigins: readonly string[];
    readonly allowHeaders: readonly string[];
    /** Answer headers a page's script may read besides the safelisted ones. */
    readonly exposeHeaders: readonly string[];
    readonly allowMethods: readonly string[];
    readonly maxAgeSeconds: number;
  };
  /** API Gateway's integration timeout, after which it answers 503. */
  readonly integrationTimeoutSeconds: number;
  /** API Gateway's payload limit. */
  readonly maxPayloadBytes: number;
}

/**
 * The routes of the registry's operations, grouped by path (in the order each path first appears
 * in the registry), each path's routes in registry order.
 */
function registryRoutes(): RouteDefinition[] {
  const routes = FUNCTION_NAMES.flatMap((name): RouteDefinition[] => {
    const operation: OperationDefinition | undefined = FUNCTIONS[name].operation;
    return operation
      ? [{ method: operation.method, path: operation.path, function: name, authorized: true }]
      : [];
  });
  const paths = [...new Set(routes.map((route) => route.path))];
  return paths.flatMap((path) => routes.filter((route) => route.path === path));
}

const ROUTES: readonly RouteDefinition[] = registryRoutes();

/** Plant Store's API. */
export const API: ApiDefinition = {
  routes: ROUTES,
  authorizer: {
    function: 'authorizer',
    identitySource: '$request.header.Authorization',
    header: 'authorization',
    defaultCacheTtlSeconds: 300,
    timeoutSeconds: 10,
  },
  cors: {
    defaultAllowOrigins: ['*'],
    allowHeaders: ['authorization', 'content-type', 'if-match', 'if-none-match'],
    // A plant's version (read-modify-write with If-Match) and how long to wait after a 503.
    exposeHeaders: ['etag', 'retry-after'],
    // Every method a route serves, so that a browser may call each of them.
    allowMethods: [...new Set(ROUTES.map((route) => route.method))],
    maxAgeSeconds: 3600,
  },
  integrationTimeoutSeconds: 30,
  maxPayloadBytes: 10 * 1024 * 1024,
};

/**
 * Lambda's limit for a synchronous invocation's request payload (the event as JSON): 6 MB, in
 * the bytes Lambda's own error message gives ("must be smaller than 6291456 bytes"). A request
 * whose event would be larger gets the gateway's 413.
 */
export const MAX_INVOKE_PAYLOAD_BYTES = 6 * 1024 * 1024;

/**
 * The `$default` stage's throttle by default: the stack deploys it (its props may override) and
 * `npm start -- --throttle` applies it locally.
 */
export const STAGE_THROTTLE = { rateLimit: 50, burstLimit: 100 } as const;

/**
 * One access-log line per request, with the caller's `tokenId`: the audit trail. The stack
 * deploys it; docs/capacity.md counts its bytes.
 */
export const ACCESS_LOG_FORMAT = {
  requestId: '$context.requestId',
  ip: '$context.identity.sourceIp',
  requestTime: '$context.requestTime',
  routeKey: '$context.routeKey',
  status: '$context.status',
  responseLength: '$context.responseLength',
  latency: '$context.responseLatency',
  integrationStatus: '$context.integrationStatus',
  integrationError: '$context.integrationErrorMessage',
  authorizerError: '$context.authorizer.error',
  tokenId: '$context.authorizer.tokenId',
};
