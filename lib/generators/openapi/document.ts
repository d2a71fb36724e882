/**
 * Builds the OpenAPI 3.1 document of the service: the bodies from the valibot schemas (with the
 * official converter), the routes, security and CORS from `lib/definitions/api.ts`, and what each route
 * answers from its operation's OpenAPI text (`openapi` in the registry, each function folder's
 * `openapi.ts`). `npm run openapi` writes it to `openapi.json`.
 */
import {
  toJsonSchema,
  toJsonSchemaDefs,
  type ConversionConfig,
  type JsonSchema,
} from '@valibot/to-json-schema';
import { join } from 'node:path';
import type * as v from 'valibot';
import { TOKEN_PREFIX } from '../../../lambda/tokens/token';
import { API, type ApiDefinition } from '../../definitions/api';
import { PROJECT_ROOT } from '../../definitions/bundling';
import { VERSION } from '../../definitions/version';
import {
  BODY_SCHEMAS,
  type AnswerDescription,
  type BodyName,
  type OperationDescription,
} from '../../../lambda/plants/openapi/descriptions';
import { FUNCTION_NAMES, FUNCTIONS } from '../../definitions/functions';
import { jsonText } from './json-text';
import { WEBHOOK_BODY_SCHEMAS, WEBHOOKS_TAG_DESCRIPTION, webhooksSection } from './webhooks';
import {
  AUTHORIZER_STATUSES,
  GATEWAY_NOT_FOUND,
  LOCAL_DEFAULT_PORT,
  gatewayAnswers,
  overview,
} from './overview';

/** Where `npm run openapi` writes the document. */
export const OPENAPI_FILE = join(PROJECT_ROOT, 'openapi.json');

/** The document as a plain JSON value; int64 bounds are `bigint`s, written with every digit. */
export type OpenApiDocument = Record<string, unknown>;

/**
 * JSON Schema 2020-12, OpenAPI 3.1's dialect. `typeMode: 'output'` converts the last schema of
 * a pipe (the object after the array check of `jsonObject`); int64s are `bigint`s in valibot,
 * so their type and bounds are given here, exactly, and a string's `maxCodePoints` (which the
 * converter does not know) is JSON Schema's `maxLength`.
 */
const CONVERSION: ConversionConfig = {
  target: 'draft-2020-12',
  typeMode: 'output',
  errorMode: 'throw',
  overrideSchema: ({ valibotSchema }) =>
    valibotSchema.type === 'bigint' ? { type: 'integer' } : undefined,
  overrideAction: ({ valibotAction, jsonSchema }) => {
    const { type, requirement } = valibotAction as { type: string; requirement?: unknown };
    // JSON Schema's `maxLength` counts code points, as valibot's `maxCodePoints` does.
    if (type === 'max_code_points') return { ...jsonSchema, maxLength: requirement as number };
    if (typeof requirement !== 'bigint') return undefined;
    if (type !== 'min_value' && type !== 'max_value') return undefined;
    // The converter's types say number; `writeDocument` writes a bigint with every digit.
    return { ...jsonSchema, [type === 'min_value' ? 'minimum' : 'maximum']: requirement as never };
  },
  overrideRef: ({ referenceId }) => `#/components/schemas/${referenceId}`,
};

/**
 * A valibot schema as a JSON Schema without `$schema` (the document's dialect applies). A
 * parameter is converted as the client sends it (`input`): its schema stops before the
 * function turns the text into a number.
 */
export function jsonSchemaOf(
  schema: v.GenericSchema,
  typeMode: 'input' | 'output' = 'output',
): JsonSchema {
  const { $schema, ...rest } = toJsonSchema(schema, { ...CONVERSION, typeMode });
  void $schema;
  return rest;
}

const ref = (name: BodyName) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: object, example?: { example: unknown } | { examples: object }) => ({
  content: { 'application/json': { schema, ...example } },
});

/**
 * One status of one operation: the function's answer, the gateway's, or either. Each carries
 * the body the runtime gives for it as its example (both, named, where either may answer), so
 * that /docs never shows one status's body under another.
 */
function response(
  fn: AnswerDescription | undefined,
  gateway: { message: string; when: string } | undefined,
): object {
  const gatewayText = gateway && `\`{"message":"${gateway.message}"}\` when ${gateway.when}.`;
  const gatewayExample = gateway && { message: gateway.message };
  if (fn && gateway) {
    return {
      description: `From the function (Error): ${fn.description}\n\nFrom the gateway (GatewayMessage): ${gatewayText}`,
      ...(fn.headers ? { headers: headersOf(fn) } : {}),
      ...json(
        { oneOf: [ref(fn.body ?? 'Error'), ref('GatewayMessage')] },
        {
          examples: {
            function: { summary: 'From the function', value: exampleOf(fn) },
            gateway: { summary: 'From the gateway', value: gatewayExample },
          },
        },
      ),
    };
  }
  if (gateway) {
    return {
      description: `From the gateway: ${gatewayText}`,
      ...json(ref('GatewayMessage'), { example: gatewayExample }),
    };
  }
  const answer = fn!;
  return {
    description: answer.description,
    ...(answer.headers ? { headers: headersOf(answer) } : {}),
    ...(answer.body ? json(ref(answer.body), { example: exampleOf(answer) }) : {}),
  };
}

/** A function answer's example; every answer with a body has one. */
function exampleOf(answer: AnswerDescription): unknown {
  if (answer.example === undefined) throw new Error(`no example for: ${answer.description}`);
  return answer.example;
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
            schema: jsonSchemaOf(p.schema, 'input'),
          })),
        }
      : {}),
    ...(described.requestBody
      ? {
          requestBody: {
            description: described.requestBody.description,
            required: true,
            content: Object.fromEntries(
              (described.requestBody.mediaTypes ?? ['application/json']).map((type) => [
                type,
                {
                  schema: ref(described.requestBody!.body),
                  example: described.requestBody!.example,
                },
              ]),
            ),
          },
        }
      : {}),
    responses,
  };
}

/** A route's key: `POST /plants`. */
type RouteKey = `${ApiDefinition['routes'][number]['method']} ${string}`;

/** Every operation's OpenAPI text by its route's key, from the registry's descriptors. */
export const OPERATIONS: Readonly<Record<string, OperationDescription>> = Object.fromEntries(
  FUNCTION_NAMES.flatMap((name) => {
    const described = FUNCTIONS[name].operation;
    return described ? [[`${described.method} ${described.path}`, described.openapi]] : [];
  }),
);

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
        `route ${key} has no description: give its function's operation an openapi (lambda/<function>/openapi.ts)`,
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
  if (stale.length > 0) throw new Error(`an openapi describes ${stale.join(', ')}: no such route`);
  const schemas: Record<string, v.GenericSchema> = { ...BODY_SCHEMAS, ...WEBHOOK_BODY_SCHEMAS };
  for (const [key, described] of Object.entries(operations)) {
    for (const [name, schema] of Object.entries(described.schemas ?? {})) {
      if (name in schemas) throw new Error(`${key} defines the body ${name}, which exists already`);
      schemas[name] = schema;
    }
    const named = [
      described.requestBody?.body,
      ...Object.values(described.answers).map((answer) => answer.body),
    ].filter((name): name is string => name !== undefined);
    for (const name of named) {
      if (!(name in schemas)) throw new Error(`${key} names the body ${name}, defined nowhere`);
    }
  }

  return {
    openapi: '3.1.0',
    info: {
      title: 'Plant Store',
      version: VERSION,
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
    tags: [
      { name: 'plants', description: 'The plants in the store' },
      { name: 'webhooks', description: WEBHOOKS_TAG_DESCRIPTION },
    ],
    paths,
    webhooks: webhooksSection(),
    components: {
      schemas: toJsonSchemaDefs(schemas, CONVERSION),
      responses: {
        GatewayNotFound: {
          description: `From the gateway: \`{"message":"${GATEWAY_NOT_FOUND.message}"}\` when ${GATEWAY_NOT_FOUND.when}.`,
          ...json(ref('GatewayMessage'), { example: { message: GATEWAY_NOT_FOUND.message } }),
        },
      },
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: `${TOKEN_PREFIX} followed by 43 base64url characters`,
          description: `A token made by \`npm run token -- create\`, or \`npm start\`'s dev token: \`npm start\` prints where it keeps it (\`.plant-store/dev-token\` unless \`PLANT_STORE_DATA_DIR\` says otherwise; \`cat\` it and paste it here), never the token itself. The authorizer checks it; the function checks its scopes.`,
        },
      },
    },
    'x-amazon-apigateway-cors': {
      allowOrigins: [...api.cors.defaultAllowOrigins],
      allowMethods: [...api.cors.allowMethods],
      allowHeaders: [...api.cors.allowHeaders],
      exposeHeaders: [...api.cors.exposeHeaders],
      maxAge: api.cors.maxAgeSeconds,
    },
  };
}

/** What `npm run openapi -- --help` prints. */
export const OPENAPI_HELP = `Usage: npm run openapi

Writes openapi.json (the API reference that npm start serves at /docs) from the request
schemas, the routes in lib/definitions/api.ts and the operations' answers. Commit it with the change.

Options:
  --help   this text
`;

/** The document as the text of `openapi.json`, ending with a newline. */
export function documentText(document: OpenApiDocument): string {
  return `${jsonText(document)}\n`;
}
