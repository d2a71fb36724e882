/**
 * Builds the OpenAPI 3.1 document of the service: the bodies from the valibot schemas (with the
 * official converter), the routes, security and CORS from `lib/api.ts`, and what each route
 * answers from `operations.ts`. `npm run openapi` writes it to `openapi.json`.
 */
import {
  toJsonSchema,
  toJsonSchemaDefs,
  type ConversionConfig,
  type JsonSchema,
} from '@valibot/to-json-schema';
import { join } from 'node:path';
import type * as v from 'valibot';
import { TOKEN_PREFIX } from '../../lambda/shared/tokens';
import { API, type ApiDefinition } from '../api';
import { PROJECT_ROOT } from '../bundling';
import {
  BODY_SCHEMAS,
  OPERATIONS,
  type AnswerDescription,
  type BodyName,
  type OperationDescription,
  type RouteKey,
} from './operations';

/** Where `npm run openapi` writes the document. */
export const OPENAPI_FILE = join(PROJECT_ROOT, 'openapi.json');

/** The document as a plain JSON value; int64 bounds are `bigint`s, written with every digit. */
export type OpenApiDocument = Record<string, unknown>;

/** Where `npm start` listens unless `PORT` says otherwise. */
const LOCAL_DEFAULT_PORT = '3000';

/**
 * JSON Schema 2020-12, OpenAPI 3.1's dialect. `typeMode: 'output'` converts the last schema of
 * a pipe (the object after the array check of `jsonObject`); int64s are `bigint`s in valibot,
 * so their type and bounds are given here, exactly.
 */
const CONVERSION: ConversionConfig = {
  target: 'draft-2020-12',
  typeMode: 'output',
  errorMode: 'throw',
  overrideSchema: ({ valibotSchema }) =>
    valibotSchema.type === 'bigint' ? { type: 'integer' } : undefined,
  overrideAction: ({ valibotAction, jsonSchema }) => {
    const { type, requirement } = valibotAction as { type: string; requirement?: unknown };
    if (typeof requirement !== 'bigint') return undefined;
    if (type !== 'min_value' && type !== 'max_value') return undefined;
    // The converter's types say number; `writeDocument` writes a bigint with every digit.
    return { ...jsonSchema, [type === 'min_value' ? 'minimum' : 'maximum']: requirement as never };
  },
  overrideRef: ({ referenceId }) => `#/components/schemas/${referenceId}`,
};

/** A valibot schema as a JSON Schema without `$schema` (the document's dialect applies). */
export function jsonSchemaOf(schema: v.GenericSchema): JsonSchema {
  const { $schema, ...rest } = toJsonSchema(schema, CONVERSION);
  void $schema;
  return rest;
}

const ref = (name: BodyName) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: object) => ({ content: { 'application/json': { schema } } });

/** What the gateway answers itself on any route, with a `GatewayMessage`. */
function gatewayAnswers(api: ApiDefinition): Record<number, { message: string; when: string }> {
  return {
    401: {
      message: 'Unauthorized',
      when: 'the request has no `Authorization` header, or an empty one (the authorizer is not called)',
    },
    403: {
      message: 'Forbidden',
      when: 'the authorizer refused the token (malformed, unknown, expired or revoked)',
    },
    413: {
      message: 'Request Entity Too Large',
      when: `the request is larger than the gateway's ${api.maxPayloadBytes / 1024 / 1024} MB`,
    },
    429: { message: 'Too Many Requests', when: 'the stage is throttling requests' },
    500: {
      message: 'Internal Server Error',
      when: 'the authorizer or the function failed or answered something malformed',
    },
    503: {
      message: 'Service Unavailable',
      when: `the function did not answer within ${api.integrationTimeoutSeconds} s`,
    },
  };
}

/** The gateway's answer to a method and path that no route has. */
const GATEWAY_NOT_FOUND = {
  message: 'Not Found',
  when: 'no route has this method and path (a trailing slash does not match; there is no 405)',
};

/** The statuses only a route behind the authorizer can answer. */
const AUTHORIZER_STATUSES = new Set([401, 403]);

/** One status of one operation: the function's answer, the gateway's, or either. */
function response(
  fn: AnswerDescription | undefined,
  gateway: { message: string; when: string } | undefined,
): object {
  const gatewayText = gateway && `\`{"message":"${gateway.message}"}\` when ${gateway.when}.`;
  if (fn && gateway) {
    return {
      description: `From the function (Error): ${fn.description}\n\nFrom the gateway (GatewayMessage): ${gatewayText}`,
      ...(fn.headers ? { headers: headersOf(fn) } : {}),
      ...json({ oneOf: [ref(fn.body ?? 'Error'), ref('GatewayMessage')] }),
    };
  }
  if (gateway)
    return { description: `From the gateway: ${gatewayText}`, ...json(ref('GatewayMessage')) };
  const answer = fn!;
  return {
    description: answer.description,
    ...(answer.headers ? { headers: headersOf(answer) } : {}),
    ...(answer.body ? json(ref(answer.body)) : {}),
  };
}

function headersOf(answer: AnswerDescription): object {
  return Object.fromEntries(
    Object.entries(answer.headers ?? {}).map(([name, header]) => [
      name,
      { description: header.description, required: false, schema: jsonSchemaOf(header.schema) },
    ]),
  );
}

function operation(
  key: RouteKey,
  authorized: boolean,
  described: OperationDescription,
  api: ApiDefinition,
): object {
  const gateway = gatewayAnswers(api);
  const statuses = [...Object.keys(described.answers), ...Object.keys(gateway)]
    .map(Number)
    .filter((status) => authorized || !AUTHORIZER_STATUSES.has(status));
  const responses = Object.fromEntries(
    [...new Set(statuses)]
      .sort((a, b) => a - b)
      .map((status) => [String(status), response(described.answers[status], gateway[status])]),
  );
  if (!responses['200'] && !responses['204']) throw new Error(`${key} describes no success answer`);
  return {
    operationId: described.operationId,
    summary: described.summary,
    description: described.description,
    tags: ['plants'],
    security: authorized ? [{ bearerAuth: [] }] : [],
    ...(described.parameters
      ? {
          parameters: described.parameters.map((p) => ({
            name: p.name,
            in: p.in,
            description: p.description,
            required: p.required,
            schema: jsonSchemaOf(p.schema),
          })),
        }
      : {}),
    ...(described.requestBody
      ? {
          requestBody: {
            description: described.requestBody.description,
            required: true,
            ...json(ref(described.requestBody.body)),
          },
        }
      : {}),
    responses,
  };
}

/** The description at the top of the document: what a client writer must know first. */
function overview(api: ApiDefinition): string {
  const gateway = gatewayAnswers(api);
  return [
    'Plant Store keeps plants. Every operation needs a bearer token and answers JSON.',
    '',
    `**Tokens.** Send \`Authorization: Bearer <token>\`. A token is \`${TOKEN_PREFIX}\` followed by 43 base64url characters; \`npm run token -- create\` makes one (\`--aws\` for a deployed stack) and \`npm start\` makes a dev token. Scopes: \`plants:write\` to create (\`plants:read\`, \`plants:delete\` for the reading and deleting operations). The gateway caches the authorizer's decision per token value for ${api.authorizer.defaultCacheTtlSeconds} s by default: a revoked token keeps working until then.`,
    '',
    '**Two error shapes.** The function answers errors with `Error`: `{"error": <the HTTP status>, "message": "..."}`. The API gateway answers some statuses itself, before or instead of the function, with `GatewayMessage`: `{"message": "..."}`:',
    '',
    ...Object.entries({ ...gateway, 404: GATEWAY_NOT_FOUND })
      .sort(([a], [b]) => Number(a) - Number(b))
      .map(
        ([status, { message, when }]) => `- ${status} \`{"message":"${message}"}\` when ${when}`,
      ),
    '',
    'Where a status can come from either, its schema is `oneOf` the two: the `error` member tells them apart.',
    '',
    '**Ids are int64** (-9223372036854775808 to 9223372036854775807) and must never pass through a float64: a JavaScript `number` (and `JSON.parse`) silently rounds integers above 2^53, so 9007199254740993 would become 9007199254740992, another plant. Read and write ids with a JSON library that keeps 64-bit integers exactly (in JavaScript: `BigInt` via a parser that reads big integers, or `JSON.parse` with a reviver using `context.source`).',
    '',
    '**Retries.** Retry a 503 after `Retry-After` seconds and a 429 or the gateway 500/503 with backoff. Creating a plant is safe to retry with the same body: the same id with the same name and tag answers 200 and writes nothing. Never retry a 409 or another 4xx unchanged.',
    '',
    `**CORS.** \`x-amazon-apigateway-cors\` says what the gateway allows (the origins are the default; a deployment may narrow them). A preflight (\`OPTIONS\` with \`Origin\` and \`Access-Control-Request-Method\`) is answered 204 without a token.`,
    '',
    `**Servers.** The first is \`npm start\` on this machine (port ${LOCAL_DEFAULT_PORT} unless \`PORT\` says otherwise); the second a deployed stack, whose \`ApiUrl\` output is the URL.`,
  ].join('\n');
}

/** Builds the document; fails when a route has no description or a description no route. */
export function buildDocument(
  api: ApiDefinition = API,
  operations: Readonly<Record<string, OperationDescription>> = OPERATIONS,
): OpenApiDocument {
  const paths: Record<string, Record<string, object>> = {};
  const keys = new Set<string>();
  for (const route of api.routes) {
    const key: RouteKey = `${route.method} ${route.path}`;
    const described = operations[key];
    if (!described) {
      throw new Error(
        `route ${key} has no description: add it to OPERATIONS in lib/openapi/operations.ts`,
      );
    }
    keys.add(key);
    paths[route.path] ??= {};
    paths[route.path]![route.method.toLowerCase()] = operation(
      key,
      route.authorized,
      described,
      api,
    );
  }
  const stale = Object.keys(operations).filter((key) => !keys.has(key));
  if (stale.length > 0) throw new Error(`OPERATIONS describes ${stale.join(', ')}: no such route`);

  return {
    openapi: '3.1.0',
    info: {
      title: 'Plant Store',
      version: '1.0.0',
      description: overview(api),
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [
      {
        url: 'http://127.0.0.1:{port}',
        description: 'npm start: the local runtime on this machine',
        variables: { port: { default: LOCAL_DEFAULT_PORT, description: 'PORT of npm start' } },
      },
      {
        url: 'https://{apiId}.execute-api.{region}.amazonaws.com',
        description: "A deployed stack: its ApiUrl output, without the trailing '/'",
        variables: {
          apiId: { default: 'abc123defg', description: 'The HTTP API id, from ApiUrl' },
          region: { default: 'us-east-1', description: 'The AWS region of the stack' },
        },
      },
    ],
    security: [{ bearerAuth: [] }],
    tags: [{ name: 'plants', description: 'The plants in the store' }],
    paths,
    components: {
      schemas: toJsonSchemaDefs(BODY_SCHEMAS as Record<BodyName, v.GenericSchema>, CONVERSION),
      responses: {
        GatewayNotFound: {
          description: `From the gateway: \`{"message":"${GATEWAY_NOT_FOUND.message}"}\` when ${GATEWAY_NOT_FOUND.when}.`,
          ...json(ref('GatewayMessage')),
        },
      },
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: `${TOKEN_PREFIX} followed by 43 base64url characters`,
          description: `A token made by \`npm run token -- create\` (or the dev token \`npm start\` prints). The authorizer checks it; the function checks its scopes.`,
        },
      },
    },
    'x-amazon-apigateway-cors': {
      allowOrigins: [...api.cors.defaultAllowOrigins],
      allowMethods: [...api.cors.allowMethods],
      allowHeaders: [...api.cors.allowHeaders],
      maxAge: api.cors.maxAgeSeconds,
    },
  };
}

/**
 * The document as the text of `openapi.json`: two-space indented JSON whose integers keep every
 * digit (`JSON.stringify` cannot write a bigint), ending with a newline.
 */
export function documentText(document: OpenApiDocument): string {
  return `${stringify(document, '')}\n`;
}

function stringify(value: unknown, indent: string): string {
  if (typeof value === 'bigint') return value.toString();
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    const inner = `${indent}  `;
    return `[\n${value.map((item) => inner + stringify(item, inner)).join(',\n')}\n${indent}]`;
  }
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).filter(([, item]) => item !== undefined);
    if (entries.length === 0) return '{}';
    const inner = `${indent}  `;
    const members = entries.map(
      ([key, item]) => `${inner}${JSON.stringify(key)}: ${stringify(item, inner)}`,
    );
    return `{\n${members.join(',\n')}\n${indent}}`;
  }
  const text = JSON.stringify(value);
  if (text === undefined) throw new Error(`cannot write ${String(value)} as JSON`);
  return text;
}
