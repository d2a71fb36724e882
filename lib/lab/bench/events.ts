/** Real-shaped events that make each function of the registry do its real work. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ALL_SCOPES } from '../../../lambda/tokens/token';
import { API } from '../../definitions/api';
import { PROJECT_ROOT } from '../../definitions/bundling';
import type { FunctionName } from '../../definitions/functions';

/**
 * A payload 2.0 event that makes `name` do its real work — the authorizer: `token`; a route's
 * function: its route with plant `id` (in the path and, for writes, a valid body naming `plantName`) — or
 * undefined if no route reaches the function.
 */
export function firstEvent(
  name: FunctionName,
  token: string,
  id: string,
  plantName = 'Bench',
): unknown {
  const authorization = `Bearer ${token}`;
  if (name === API.authorizer.function) {
    const event = JSON.parse(readFileSync(join(PROJECT_ROOT, 'events', 'authorizer.json'), 'utf8'));
    event.headers.authorization = authorization;
    event.identitySource = [authorization];
    return event;
  }
  const route = API.routes.find((candidate) => candidate.function === name);
  if (!route) return undefined;
  const path = route.path.replace('{id}', id);
  const event = JSON.parse(readFileSync(join(PROJECT_ROOT, 'events', 'create-plant.json'), 'utf8'));
  event.routeKey = `${route.method} ${route.path}`;
  event.rawPath = path;
  event.requestContext.http = { ...event.requestContext.http, method: route.method, path };
  event.requestContext.routeKey = event.routeKey;
  event.requestContext.authorizer = {
    lambda: { tokenId: 'tok_bench', name: 'bench', scopes: ALL_SCOPES.join(' ') },
  };
  if (route.path.includes('{id}')) event.pathParameters = { id };
  if (route.method === 'POST' || route.method === 'PUT' || route.method === 'PATCH') {
    event.body = `{"id":${id},"name":${JSON.stringify(plantName)}}`;
    event.headers['content-length'] = String(Buffer.byteLength(event.body));
  } else {
    delete event.body;
    delete event.headers['content-type'];
    delete event.headers['content-length'];
  }
  return event;
}
