/**
 * The plants-handler frame, through the real plants handlers with a table injected in place of
 * DynamoDB: the scope check comes before anything reaches the table, its 403 log line names the
 * caller's token, and an operation that passes the check answers from the injected table.
 */
import { makeCreatePlantHandler } from '../../../lambda/create-plant/handler';
import { makeDeletePlantHandler } from '../../../lambda/delete-plant/handler';
import { makeGetPlantHandler } from '../../../lambda/get-plant/handler';
import { makeListPlantsHandler } from '../../../lambda/list-plants/handler';
import { makePatchPlantHandler } from '../../../lambda/patch-plant/handler';
import { makeUpdatePlantHandler } from '../../../lambda/update-plant/handler';
import type { PlantsHandlerDeps } from '../../../lambda/plants/handler';
import type { PlantsStore } from '../../../lambda/plants/table';
import {
  PLANTS_DELETE,
  PLANTS_READ,
  PLANTS_WRITE,
  SCOPES_REVISION,
} from '../../../lambda/tokens/principal';
import type { PlantsEvent } from '../../../lambda/plants/request';
import { createPlantEvent, plantBody, plantsEvent } from '../../support/events';
import { captureOutput, type CapturedOutput } from '../../support/output';

const monstera = { id: 7n, name: 'Monstera', tag: 'aroid' };
const GET_ONE = { method: 'GET', route: '/plants/{id}', pathParameters: { id: '7' } } as const;

/** A table that answers as if it held `monstera` and records every call made on it. */
function injectedTable() {
  const calls: string[] = [];
  const table: PlantsStore = {
    putNew: async (plant) => {
      calls.push(`putNew ${plant.id}`);
      return undefined;
    },
    get: async (id) => {
      calls.push(`get ${id}`);
      return id === monstera.id ? { plant: monstera, version: 1 } : undefined;
    },
    update: async (id) => {
      calls.push(`update ${id}`);
      return id === monstera.id ? { plant: monstera, version: 2 } : { refused: 'missing' };
    },
    delete: async (id) => {
      calls.push(`delete ${id}`);
      return id === monstera.id ? { plant: monstera, version: 2 } : { refused: 'missing' };
    },
    scan: async (limit) => {
      calls.push(`scan ${limit}`);
      return { plants: [monstera] };
    },
    queryByTag: async (tag, limit) => {
      calls.push(`queryByTag ${tag} ${limit}`);
      return { plants: tag === monstera.tag ? [monstera] : [] };
    },
  };
  return { calls, deps: { table } satisfies PlantsHandlerDeps };
}

type Handler = (event: PlantsEvent) => Promise<{ statusCode?: number }>;

/** Each handler: its scope, an event for a caller with `scopes`, the table call, outcome, status. */
const HANDLERS = [
  {
    name: 'create-plant',
    scope: PLANTS_WRITE,
    make: makeCreatePlantHandler,
    event: (scopes: string) =>
      createPlantEvent({
        body: plantBody('7', { name: 'Monstera', tag: 'aroid' }),
        context: caller(scopes),
      }),
    call: 'putNew 7',
    outcome: 'created',
    status: 200,
  },
  {
    name: 'get-plant',
    scope: PLANTS_READ,
    make: makeGetPlantHandler,
    event: (scopes: string) => plantsEvent({ ...GET_ONE, context: caller(scopes) }),
    call: 'get 7',
    outcome: 'read',
    status: 200,
  },
  {
    name: 'list-plants',
    scope: PLANTS_READ,
    make: makeListPlantsHandler,
    event: (scopes: string) =>
      plantsEvent({ method: 'GET', route: '/plants', context: caller(scopes) }),
    call: 'scan 20',
    outcome: 'listed',
    status: 200,
  },
  {
    name: 'list-plants by tag',
    scope: PLANTS_READ,
    make: makeListPlantsHandler,
    event: (scopes: string) =>
      plantsEvent({
        method: 'GET',
        route: '/plants',
        query: { tag: 'aroid', limit: '5' },
        context: caller(scopes),
      }),
    call: 'queryByTag aroid 5',
    outcome: 'listed',
    status: 200,
  },
  ...(
    [
      ['update-plant', 'PUT', makeUpdatePlantHandler],
      ['patch-plant', 'PATCH', makePatchPlantHandler],
    ] as const
  ).map(([name, method, make]) => ({
    name,
    scope: PLANTS_WRITE,
    make,
    event: (scopes: string) =>
      plantsEvent({ ...GET_ONE, method, body: '{"name":"Monstera"}', context: caller(scopes) }),
    call: 'update 7',
    outcome: 'updated',
    // plants:write alone: 204 and the ETag, never the stored members.
    status: 204,
  })),
  {
    name: 'delete-plant',
    scope: PLANTS_DELETE,
    make: makeDeletePlantHandler,
    event: (scopes: string) =>
      plantsEvent({ ...GET_ONE, method: 'DELETE', context: caller(scopes) }),
    call: 'delete 7',
    outcome: 'deleted',
    status: 204,
  },
] satisfies {
  name: string;
  scope: string;
  make: (deps: PlantsHandlerDeps) => Handler;
  event: (scopes: string) => PlantsEvent;
  call: string;
  outcome: string;
  status: number;
}[];

function caller(scopes: string, scopesRevision = SCOPES_REVISION) {
  return { tokenId: 'tok_0123456789abcdef', name: 'frame', scopes, scopesRevision };
}

let output: CapturedOutput;
beforeEach(() => {
  output = captureOutput();
});
afterEach(() => output.restore());

const logLines = () => output.json().filter((line) => 'level' in line);

describe.each(HANDLERS)('$name', ({ scope, make, event, call, outcome, status }) => {
  it(`without ${scope}: 403, the line names the token, nothing reaches the table`, async () => {
    const { calls, deps } = injectedTable();
    const others = 'plants:read plants:write plants:delete'.replace(scope, '').trim();
    const answer = await make(deps)(event(others));
    expect(answer.statusCode).toBe(403);
    expect(calls).toEqual([]);
    expect(logLines()).toEqual([
      expect.objectContaining({ message: 'forbidden', tokenId: 'tok_0123456789abcdef' }),
    ]);
  });

  it(`with ${scope}: the operation answers from the injected table`, async () => {
    const { calls, deps } = injectedTable();
    const answer = await make(deps)(event(scope));
    expect(answer.statusCode).toBe(status);
    expect(calls).toEqual([call]);
    expect(logLines()).toEqual([
      expect.objectContaining({ message: outcome, tokenId: 'tok_0123456789abcdef' }),
    ]);
  });
});

it('a direct invoke without an authorizer context is refused, with no token id to log', async () => {
  const { calls, deps } = injectedTable();
  const answer = await makeGetPlantHandler(deps)(plantsEvent({ ...GET_ONE, context: null }));
  expect(answer.statusCode).toBe(403);
  expect(calls).toEqual([]);
  expect(logLines()).toEqual([expect.not.objectContaining({ tokenId: expect.anything() })]);
});

describe('a token made before 1.2.0 (scopes revision 1, or none in its context)', () => {
  const old = (scopes: string, revision?: unknown) => {
    const context: Record<string, unknown> = caller(scopes);
    if (revision === undefined) delete context.scopesRevision;
    else context.scopesRevision = revision;
    return context;
  };

  it.each([
    ['PUT', makeUpdatePlantHandler, 1],
    ['PATCH', makePatchPlantHandler, 1],
    ['PUT', makeUpdatePlantHandler, undefined],
    ['PATCH', makePatchPlantHandler, undefined],
    // Not a revision: read as the narrowest, not a reason to refuse every scope.
    ['PUT', makeUpdatePlantHandler, '2'],
    ['PATCH', makePatchPlantHandler, 0],
  ] as const)(
    '%s with plants:write (revision %s): 403, nothing reaches the table',
    async (method, make, revision) => {
      const { calls, deps } = injectedTable();
      const answer = await make(deps)(
        plantsEvent({
          ...GET_ONE,
          method,
          body: '{"name":"Monstera"}',
          context: old('plants:read plants:write plants:delete', revision),
        }),
      );
      expect(answer.statusCode).toBe(403);
      expect(JSON.parse(answer.body ?? '')).toEqual({
        error: 403,
        message:
          'the token was made before 1.2.0, when its scope plants:write did not cover this operation; make a new token for it',
      });
      expect(calls).toEqual([]);
    },
  );

  it('keeps what its scopes let it do then: POST creates, GET reads', async () => {
    const { calls, deps } = injectedTable();
    const context = old('plants:read plants:write', 1);
    const created = await makeCreatePlantHandler(deps)(
      createPlantEvent({ body: plantBody('7', { name: 'Monstera' }), context }),
    );
    expect(created.statusCode).toBe(200);
    const read = await makeGetPlantHandler(deps)(plantsEvent({ ...GET_ONE, context }));
    expect(read.statusCode).not.toBe(403);
    expect(calls).toEqual(['putNew 7', 'get 7']);
  });
});
