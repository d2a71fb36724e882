/** Real-shaped events that make each function of the registry do its real work. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SCOPES_REVISION } from '../../../lambda/tokens/principal';
import { ALL_SCOPES } from '../../../lambda/tokens/token';
import { API } from '../../definitions/api';
import { PROJECT_ROOT } from '../../definitions/bundling';
import { exampleRequest } from '../../definitions/example-request';
import type { FunctionName } from '../../definitions/functions';
import { routeEvent } from '../../generators/workspace/events';

/** The members of a route's event this module sets. */
interface RouteEvent {
  rawPath: string;
  headers: Record<string, string>;
  requestContext: { http: { path: string }; authorizer: unknown };
  pathParameters?: Record<string, string>;
  body?: string;
}

/**
 * A payload 2.0 event that makes `name` do its real work — the authorizer: `token`; a route's
 * function: its operation's example request about plant `id` (lib/definitions/example-request.ts;
 * `members` replace those of the example body that it has) — or undefined if no route reaches
 * the function.
 */
export function firstEvent(
  name: FunctionName,
  token: string,
  id: string,
  members: Readonly<Record<string, unknown>> = {},
): unknown {
  const authorization = `Bearer ${token}`;
  if (name === API.authorizer.function) {
    const event = JSON.parse(readFileSync(join(PROJECT_ROOT, 'events', 'authorizer.json'), 'utf8'));
    event.headers.authorization = authorization;
    event.identitySource = [authorization];
    return event;
  }
  const event = routeEvent(name) as RouteEvent | undefined;
  if (!event) return undefined;
  const { path, pathParameters, body } = exampleRequest(name, id, members);
  event.headers.authorization = authorization;
  event.rawPath = path;
  event.requestContext.http.path = path;
  event.requestContext.authorizer = {
    lambda: {
      tokenId: 'tok_bench',
      name: 'bench',
      scopes: ALL_SCOPES.join(' '),
      scopesRevision: SCOPES_REVISION,
    },
  };
  if (pathParameters) event.pathParameters = pathParameters;
  if (body !== undefined) {
    event.body = body;
    event.headers['content-length'] = String(Buffer.byteLength(body));
  }
  return event;
}
