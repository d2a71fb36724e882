/**
 * The registry's descriptors against what they describe: every function is reached by exactly one
 * thing (the gateway's authorizer, a trigger, or its operation's route), every route by one
 * function, each handler requires the scope its descriptor names and the OpenAPI text says so;
 * every outcome is graphed, every operation has an example request and a committed event. The
 * tools that send operations (the bench, the load, the capacity model) derive theirs from the
 * descriptors and name an operation they cannot serve; their own tests hold them
 * (docs/contributing.md, "Adding an operation").
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { OUTCOME_METRICS, type Outcome } from '../../../lambda/observability/metrics-contract';
import { ALL_SCOPES } from '../../../lambda/tokens/token';
import { API } from '../../../lib/definitions/api';
import { PROJECT_ROOT } from '../../../lib/definitions/bundling';
import {
  FUNCTIONS,
  FUNCTION_NAMES,
  REQUEST_OUTCOMES,
  type FunctionName,
} from '../../../lib/definitions/functions';
import { exampleRequest } from '../../../lib/definitions/example-request';
import { buildDocument } from '../../../lib/generators/openapi/document';
import { eventFile } from '../../../lib/generators/workspace/events';
import { firstEvent } from '../../../lib/lab/bench/events';

const operations = FUNCTION_NAMES.flatMap((name) => {
  const operation = FUNCTIONS[name].operation;
  return operation ? [{ name, ...operation }] : [];
});

it.each(FUNCTION_NAMES)(
  '%s is reached by exactly one thing: authorizer, trigger or route',
  (name) => {
    const reachedBy = [
      name === API.authorizer.function && 'the authorizer',
      FUNCTIONS[name].trigger,
      ...API.routes.filter((route) => route.function === name).map((r) => `${r.method} ${r.path}`),
    ].filter(Boolean);
    expect(reachedBy).toHaveLength(1);
  },
);

it('has one route per operation and one operation per route', () => {
  expect(API.routes.map(({ method, path, function: name }) => [name, method, path]).sort()).toEqual(
    operations.map(({ name, method, path }) => [name, method, path]).sort(),
  );
  const keys = API.routes.map((route) => `${route.method} ${route.path}`);
  expect(new Set(keys).size).toBe(keys.length);
  expect(API.routes.every((route) => route.authorized)).toBe(true);
});

it('names every outcome once per operation', () => {
  for (const { outcomes } of operations) expect(new Set(outcomes).size).toBe(outcomes.length);
});

it('graphs every outcome of the metric contract: an operation, the authorizer or any function reports it', () => {
  const authorizer: Outcome[] = ['allowed', 'denied'];
  const anyFunction: Outcome[] = ['unavailable', 'error'];
  expect([...REQUEST_OUTCOMES, ...authorizer, ...anyFunction].sort()).toEqual(
    Object.keys(OUTCOME_METRICS).sort(),
  );
});

it.each(operations)(
  '$name has an example request derived from its descriptor: route, and a body where it takes one',
  ({ name, method, path, openapi }) => {
    const request = exampleRequest(name, 7);
    expect(request.method).toBe(method);
    expect(request.path).toBe(path.replace('{id}', '7'));
    expect(request.body !== undefined).toBe(openapi.requestBody !== undefined);
    if (request.body !== undefined) expect(() => JSON.parse(request.body!)).not.toThrow();
  },
);

it.each(FUNCTION_NAMES)('events/%s.json is an event for it (sam local invoke -e)', (name) => {
  const file = eventFile(name);
  // A new API function's event is written from its descriptor by npm run generate.
  expect({ file, exists: existsSync(file) }).toEqual({ file, exists: true });
  const event = JSON.parse(readFileSync(file, 'utf8'));
  const operation = FUNCTIONS[name].operation;
  if (operation) {
    expect(event).toMatchObject({
      routeKey: `${operation.method} ${operation.path}`,
      requestContext: { http: { method: operation.method } },
    });
  }
});

describe.each(operations)('$name ($method $path)', ({ name, scope, method, path }) => {
  /** The handler as its folder builds it, on a table that must not be reached. */
  async function answer(scopes: readonly string[]) {
    const module = (await import(
      join(PROJECT_ROOT, dirname(FUNCTIONS[name].entry), 'handler')
    )) as Record<string, (deps: unknown) => (event: unknown, context: unknown) => Promise<unknown>>;
    const factories = Object.values(module).filter((value) => typeof value === 'function');
    expect(factories).toHaveLength(1);
    const table = new Proxy(
      {},
      {
        get: () => {
          throw new Error('the table was reached');
        },
      },
    );
    const event = firstEvent(name as FunctionName, 'pst_unused', '7') as {
      requestContext: { authorizer: { lambda: { scopes: string } } };
    };
    event.requestContext.authorizer.lambda.scopes = scopes.join(' ');
    const handler = factories[0]!({ table });
    return (await handler(event, { awsRequestId: 'descriptors' })) as {
      statusCode: number;
      body?: string;
    };
  }

  it(`refuses a token without ${scope}: 403 naming it`, async () => {
    const refused = await answer(ALL_SCOPES.filter((candidate) => candidate !== scope));
    expect(refused.statusCode).toBe(403);
    expect(JSON.parse(refused.body!).message).toContain(scope);
  });

  it(`lets a token with only ${scope} past the scope check`, async () => {
    expect((await answer([scope])).statusCode).not.toBe(403);
  });

  it('is documented with its scope in the OpenAPI text', () => {
    const paths = buildDocument().paths as Record<
      string,
      Record<string, { description: string; responses: Record<string, { description: string }> }>
    >;
    const described = paths[path]![method.toLowerCase()]!;
    expect(described.description).toContain(`\`${scope}\``);
    expect(described.responses['403']!.description).toContain(`\`${scope}\``);
  });
});
