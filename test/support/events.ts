/** Create-plant events for tests, made from the real-shaped event in `events/`. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { APIGatewayRequestAuthorizerEventV2 } from 'aws-lambda';
import type { CreatePlantEvent } from '../../lambda/create-plant/handler';
import { plantMembers, type Plant } from '../../lambda/plants/schemas';
import { SCOPES_REVISION } from '../../lambda/tokens/principal';

const TEMPLATE = readFileSync(join(__dirname, '../../events/create-plant.json'), 'utf8');
const AUTHORIZER_TEMPLATE = readFileSync(join(__dirname, '../../events/authorizer.json'), 'utf8');

/** An authorizer event carrying `authorization` (`undefined` removes the header). */
export function authorizerEvent(
  authorization: string | undefined,
): APIGatewayRequestAuthorizerEventV2 {
  const event = JSON.parse(AUTHORIZER_TEMPLATE) as APIGatewayRequestAuthorizerEventV2;
  if (authorization === undefined) {
    delete event.headers?.authorization;
    event.identitySource = [];
  } else {
    event.headers = { ...event.headers, authorization };
    event.identitySource = [authorization];
  }
  return event;
}

/** What a test changes in the template event. */
export interface EventOptions {
  /** The body text; with `base64`, encoded as the gateway would. `undefined` removes it. */
  readonly body?: string | Buffer | undefined;
  readonly base64?: boolean;
  /** The content-type header; `null` removes it. @default 'application/json' */
  readonly contentType?: string | null;
  /** Authorizer context; `null` removes the authorizer. */
  readonly context?: Record<string, unknown> | null;
  readonly requestId?: string;
}

/** A payload 2.0 POST /plants event. */
export function createPlantEvent(options: EventOptions = {}): CreatePlantEvent {
  const event = JSON.parse(TEMPLATE) as CreatePlantEvent & { body?: string };
  if ('body' in options) {
    if (options.body === undefined) delete event.body;
    else
      event.body = options.base64
        ? Buffer.from(options.body).toString('base64')
        : String(options.body);
  }
  event.isBase64Encoded = options.base64 ?? false;
  if (options.contentType === null) delete event.headers['content-type'];
  else if (options.contentType !== undefined) event.headers['content-type'] = options.contentType;
  if (options.context === null) {
    delete (event.requestContext as { authorizer?: unknown }).authorizer;
  } else if (options.context) event.requestContext.authorizer = { lambda: options.context };
  if (options.requestId) event.requestContext.requestId = options.requestId;
  return event;
}

/**
 * The body of a create request: `id` as written (a JSON number literal: `7`, `7.0`, `0.7e1`),
 * then each of the schema's members that `plant` has, in schema order, as JSON.
 */
export function plantBody(id: string, plant: Plant): string {
  const members = Object.entries(plantMembers(plant)).map(
    ([field, value]) => `,${JSON.stringify(field)}:${JSON.stringify(value)}`,
  );
  return `{"id":${id}${members.join('')}}`;
}

/** What a read, change or delete request test sets. */
export interface PlantsEventOptions {
  readonly method: 'GET' | 'DELETE' | 'PUT' | 'PATCH';
  /** The route as defined, e.g. `/plants/{id}`. */
  readonly route: string;
  /** `pathParameters`, already percent-decoded as the gateway passes them. */
  readonly pathParameters?: Record<string, string>;
  readonly query?: Record<string, string>;
  /** Authorizer context; `null` removes the authorizer. */
  readonly context?: Record<string, unknown> | null;
  readonly requestId?: string;
  /** Headers to add (lower-case names, as payload 2.0 has them): `if-match`, `content-type`. */
  readonly headers?: Record<string, string>;
  /** A JSON body (PUT, PATCH), sent as `application/json` unless `headers` say otherwise. */
  readonly body?: string;
}

/** Every scope: the default authorizer context of read and delete events. */
export const ALL_SCOPES_CONTEXT = {
  tokenId: 'tok_example',
  name: 'example',
  scopes: 'plants:read plants:write plants:delete',
  scopesRevision: SCOPES_REVISION,
};

/** A payload 2.0 event for the plants routes besides POST (a body only when given). */
export function plantsEvent(options: PlantsEventOptions): CreatePlantEvent {
  const event = JSON.parse(TEMPLATE) as CreatePlantEvent & { body?: string };
  delete event.body;
  delete event.headers['content-type'];
  delete event.headers['content-length'];
  const id = options.pathParameters?.id;
  const rawPath = id === undefined ? options.route : options.route.replace('{id}', id);
  const routeKey = `${options.method} ${options.route}`;
  event.routeKey = routeKey;
  event.rawPath = rawPath;
  event.requestContext.routeKey = routeKey;
  event.requestContext.http = {
    ...event.requestContext.http,
    method: options.method,
    path: rawPath,
  };
  if (options.pathParameters) event.pathParameters = options.pathParameters;
  if (options.query) {
    event.queryStringParameters = options.query;
    event.rawQueryString = new URLSearchParams(options.query).toString();
  }
  if (options.context === null) {
    delete (event.requestContext as { authorizer?: unknown }).authorizer;
  } else {
    event.requestContext.authorizer = { lambda: options.context ?? ALL_SCOPES_CONTEXT };
  }
  if (options.requestId) event.requestContext.requestId = options.requestId;
  if (options.body !== undefined) {
    event.body = options.body;
    event.headers['content-type'] = 'application/json';
  }
  Object.assign(event.headers, options.headers);
  return event;
}
