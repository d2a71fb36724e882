/**
 * The OpenAPI document: a third-party validator accepts it as OpenAPI 3.1, and it keeps every
 * rule of the seed interface — written out below from the seed, not copied from our output.
 * (That the committed `openapi.json` is what the code generates, `npm run generate -- --check`
 * checks, with every other generated file.)
 */
import { compileErrors, dereference, validate } from '@readme/openapi-parser';
import { readFileSync } from 'node:fs';
import { parseJson } from '../../../lambda/http/json';
import { API } from '../../../lib/definitions/api';
import { VERSION } from '../../../lib/definitions/version';
import * as v from 'valibot';
import { OPENAPI_FILE, OPERATIONS, buildDocument } from '../../../lib/generators/openapi/document';

const text = readFileSync(OPENAPI_FILE, 'utf8');
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Doc = any;
const fresh = (): Doc => JSON.parse(text);
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** The seed's three schemas, field by field: type, format, required, and the seed's words. */
const SEED_SCHEMAS = {
  NewPlant: {
    required: ['id', 'name'],
    properties: {
      id: { type: 'integer', format: 'int64', description: 'Identification number of the plant' },
      name: { type: 'string', description: 'The name of the plant' },
      tag: { type: 'string', description: 'Tag that specifies the type of the plant' },
    },
  },
  Plant: {
    required: ['name'],
    properties: {
      name: { type: 'string', description: 'The name of the plant' },
      tag: { type: 'string', description: 'Tag that specifies the type of the plant' },
    },
  },
  Error: {
    required: ['error', 'message'],
    properties: {
      error: { type: 'integer', format: 'int32', description: 'Numeric error value' },
      message: { type: 'string', description: 'Error message' },
    },
  },
} as const;

it('is valid OpenAPI 3.1 according to @readme/openapi-parser', async () => {
  const result = await validate(fresh());
  expect(result.valid ? '' : compileErrors(result)).toBe('');
  expect(result.valid).toBe(true);
});

describe("the seed's rules", () => {
  let doc: Doc;
  beforeAll(async () => {
    doc = await dereference(fresh());
  });

  // The seed's document is 1.0.0; later releases keep its major version while no change breaks
  // its clients (test/release/unit/versions.test.ts holds the rule), and say the one release version.
  it('is OpenAPI 3.1.0, "Plant Store" 1.x (the release version), MIT', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info).toMatchObject({ title: 'Plant Store', version: VERSION });
    expect(VERSION).toMatch(/^1\.\d+\.\d+$/);
    expect(doc.info.license.name).toBe('MIT');
    expect(doc.info.license.identifier).toBe('MIT');
  });

  // Where the seed's own fields are guarded: a field added to the schema (lambda/plants/schemas.ts)
  // passes only as an optional one, and none of the seed's may change or go.
  it.each(Object.entries(SEED_SCHEMAS))(
    "%s keeps the seed's fields and rules, and requires nothing more",
    (name, seed) => {
      const schema = doc.components.schemas[name];
      expect(schema.type).toBe('object');
      expect([...schema.required].sort()).toEqual([...seed.required].sort());
      expect(Object.keys(schema.properties)).toEqual(
        expect.arrayContaining(Object.keys(seed.properties)),
      );
      for (const [field, rules] of Object.entries(seed.properties)) {
        const property = schema.properties[field];
        expect({ field, type: property.type, description: property.description }).toEqual({
          field,
          type: rules.type,
          description: rules.description,
        });
        expect(property.format).toBe('format' in rules ? rules.format : undefined);
      }
    },
  );

  it('declares bearerAuth, HTTP bearer, and requires it on every operation', () => {
    const scheme = doc.components.securitySchemes.bearerAuth;
    expect(scheme.type).toBe('http');
    expect(scheme.scheme.toLowerCase()).toBe('bearer');
    const operations = Object.entries(doc.paths).flatMap(([path, item]: [string, Doc]) =>
      METHODS.filter((m) => item[m]).map((m) => [`${m} ${path}`, item[m]] as const),
    );
    expect(operations.length).toBeGreaterThan(0);
    for (const [name, operation] of operations) {
      expect({ name, security: operation.security ?? doc.security }).toEqual({
        name,
        security: [{ bearerAuth: [] }],
      });
    }
  });

  it('POST /plants: NewPlant in (required, application/json); 200 Plant and 400 Error out', () => {
    const post = doc.paths['/plants'].post;
    expect(post.parameters ?? []).toEqual([]);
    expect(post.requestBody.required).toBe(true);
    expect(post.requestBody.content['application/json'].schema).toEqual(
      doc.components.schemas.NewPlant,
    );
    expect(post.responses['200'].content['application/json'].schema).toEqual(
      doc.components.schemas.Plant,
    );
    expect(post.responses['400'].content['application/json'].schema).toEqual(
      doc.components.schemas.Error,
    );
  });
});

describe('beyond the seed', () => {
  const doc = parseJson(text) as Doc;

  it('gives id its int64 bounds with every digit and says it must never pass through a float64', () => {
    expect(doc.components.schemas.NewPlant.properties.id.minimum).toBe(-(2n ** 63n));
    expect(doc.components.schemas.NewPlant.properties.id.maximum).toBe(2n ** 63n - 1n);
    expect(doc.info.description).toMatch(/must never pass through a float64/);
    expect(doc.info.description).toMatch(/2\^53/);
  });

  it('lists the local runtime first, then the deployed URL as a template', () => {
    expect(doc.servers[0].url).toBe('http://127.0.0.1:{port}');
    expect(doc.servers[1].url).toMatch(/^https:\/\/\{apiId\}\.execute-api\.\{region\}\./);
  });

  it('documents every route of lib/definitions/api.ts, each with the gateway answers beside its own', () => {
    for (const route of API.routes) {
      const operation = doc.paths[route.path][route.method.toLowerCase()];
      expect(operation.description.length).toBeGreaterThan(0);
      for (const status of ['401', '403', '413', '429', '431', '500', '503']) {
        const schema = operation.responses[status].content['application/json'].schema;
        const refs = schema.oneOf ? schema.oneOf.map((s: Doc) => s.$ref) : [schema.$ref];
        expect({ status, refs }).toEqual({
          status,
          refs: expect.arrayContaining(['#/components/schemas/GatewayMessage']),
        });
      }
    }
    expect(doc.paths['/plants'].post.responses['503'].headers['Retry-After']).toBeDefined();
  });

  it('answers every status of POST /plants that the service gives', () => {
    expect(Object.keys(doc.paths['/plants'].post.responses)).toEqual([
      '200',
      '400',
      '401',
      '403',
      '409',
      '413',
      '415',
      '429',
      '431',
      '500',
      '503',
    ]);
  });

  it('declares every tag an operation or webhook uses (Redocly operation-tag-defined)', () => {
    const operations = [doc.paths, doc.webhooks].flatMap((section) =>
      Object.values(section).flatMap((item) =>
        Object.entries(item as Doc)
          .filter(([method]) => METHODS.includes(method))
          .map(([, operation]) => operation as Doc),
      ),
    );
    const used = new Set(operations.flatMap((operation) => operation.tags ?? []));
    expect(used).toEqual(new Set(['plants', 'webhooks']));
    const declared = doc.tags.map((tag: Doc) => tag.name);
    for (const tag of used) expect(declared).toContain(tag);
    for (const tag of doc.tags) expect(tag.description.length).toBeGreaterThan(0);
  });

  it("describes the receiver's answers to newPlant and what each does", () => {
    const { responses } = doc.webhooks.newPlant.post;
    expect(Object.keys(responses).sort()).toEqual(['2XX', '410', '429', '503', 'default']);
    expect(responses['410'].description).toMatch(/disabled at once.*webhook -- enable/s);
    for (const status of ['429', '503']) {
      expect(responses[status].headers['Retry-After'].description).toMatch(/up to 12 h/);
    }
    const pattern = new RegExp(responses['429'].headers['Retry-After'].schema.pattern);
    expect(['120', 'Wed, 25 Nov 2026 08:00:00 GMT'].map((v) => pattern.test(v))).toEqual([
      true,
      true,
    ]);
    expect(pattern.test('soon')).toBe(false);
    expect(responses['429'].description).toMatch(/slow down/);
  });

  it('carries the CORS configuration of lib/definitions/api.ts', () => {
    expect(doc['x-amazon-apigateway-cors']).toEqual({
      allowOrigins: API.cors.defaultAllowOrigins,
      allowMethods: API.cors.allowMethods,
      allowHeaders: API.cors.allowHeaders,
      exposeHeaders: API.cors.exposeHeaders,
      maxAge: BigInt(API.cors.maxAgeSeconds),
    });
  });

  it('refuses to generate a document with a route it does not describe', () => {
    const extra = {
      method: 'PATCH',
      path: '/plants',
      function: 'create-plant',
      authorized: true,
    } as const;
    expect(() => buildDocument({ ...API, routes: [...API.routes, extra] })).toThrow(
      'route PATCH /plants has no description',
    );
  });

  it("writes an operation's own bodies into the components, and refuses a body defined nowhere", () => {
    const route = {
      method: 'POST',
      path: '/plants/x',
      function: 'create-plant',
      authorized: true,
    } as const;
    const create = OPERATIONS['POST /plants']!;
    const own = {
      ...create,
      operationId: 'x',
      requestBody: { ...create.requestBody!, body: 'XRequest' },
      schemas: { XRequest: v.object({ ids: v.array(v.string()) }) },
    };
    const api = { ...API, routes: [...API.routes, route] };
    const document = buildDocument(api, { ...OPERATIONS, 'POST /plants/x': own }) as Doc;
    expect(document.components.schemas.XRequest).toMatchObject({ type: 'object' });
    expect(document.paths['/plants/x'].post.requestBody.content['application/json'].schema).toEqual(
      { $ref: '#/components/schemas/XRequest' },
    );
    const undefinedBody = { ...own, schemas: undefined };
    expect(() => buildDocument(api, { ...OPERATIONS, 'POST /plants/x': undefinedBody })).toThrow(
      'POST /plants/x names the body XRequest, defined nowhere',
    );
  });
});
