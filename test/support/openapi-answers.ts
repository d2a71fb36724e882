/**
 * Checks one HTTP answer against the committed `openapi.json`: the status must be listed for
 * the operation (or be the gateway's 404 when no operation matches, or a CORS preflight's 204),
 * the body must match the status's schema (Ajv, JSON Schema 2020-12, with ajv-formats) and the
 * documented headers their schemas. Bodies are parsed without rounding: every integer keeps its
 * digits, and one beyond 2^53 is checked against OpenAPI's int64 range exactly.
 */
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseJson, type JsonValue } from '../../lambda/http/json';

/** The request an answer belongs to. */
export interface CheckedRequest {
  readonly method: string;
  readonly url: string;
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>;
}

/** An answer as received. */
export interface ReceivedAnswer {
  readonly status: number;
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** What the gateway answers before it looks for a route, on any path. */
const BEFORE_ROUTING = new Set([429, 431]);
const GATEWAY_ONLY: Response = {
  content: { 'application/json': { schema: { $ref: '#/components/schemas/GatewayMessage' } } },
};

/** OpenAPI's int64: a signed 64-bit integer. */
const INT64 = { min: -(2n ** 63n), max: 2n ** 63n - 1n };
const INT32 = { min: -(2 ** 31), max: 2 ** 31 - 1 };

type Json = null | boolean | string | number | Json[] | { [key: string]: Json };
type Operation = { responses: Record<string, Response> };
type Response = {
  content?: Record<string, { schema: Json }>;
  headers?: Record<string, { required?: boolean; schema: Json }>;
};

/** Integers beyond a float64's exact range are kept as bigints in `big`, and rounded in the copy. */
function plain(value: JsonValue, big: bigint[]): Json {
  if (typeof value === 'bigint') {
    if (value < -(2n ** 53n) || value > 2n ** 53n) big.push(value);
    return Number(value);
  }
  if (Array.isArray(value)) return value.map((item) => plain(item, big));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, item]) => [k, plain(item, big)]));
  }
  return value;
}

/** Reads `openapi.json` (int64 bounds as the nearest float64s, which Ajv compares). */
export function loadDocument(file = join(__dirname, '../../openapi.json')): Record<string, Json> {
  return plain(parseJson(readFileSync(file, 'utf8')), []) as Record<string, Json>;
}

/** A checker bound to one document. */
export class AnswerChecker {
  private readonly ajv = new Ajv2020({ allErrors: true, strict: true });
  private readonly compiled = new Map<Json, ValidateFunction>();
  private readonly routes: { method: string; pattern: RegExp; exact: boolean; path: string }[];

  constructor(private readonly document: Record<string, Json> = loadDocument()) {
    addFormats(this.ajv);
    this.ajv.addFormat('int32', {
      type: 'number',
      validate: (n: number) => Number.isInteger(n) && n >= INT32.min && n <= INT32.max,
    });
    // The exact int64 range is checked on the bigints; a float64 cannot tell 2^63 - 1 from 2^63.
    this.ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isInteger(n) });
    this.ajv.addKeyword('components');
    const paths = document.paths as Record<string, Record<string, Operation>>;
    this.routes = Object.entries(paths).flatMap(([path, operations]) =>
      Object.keys(operations).map((method) => ({
        method: method.toUpperCase(),
        path,
        exact: !path.includes('{'),
        // `{name}` is one path segment; a greedy `{name+}` is the rest of the path.
        pattern: new RegExp(
          `^${path.replace(/\{[^}]+\+\}/g, '.+').replace(/\{[^}]+\}/g, '[^/]+')}$`,
        ),
      })),
    );
  }

  /** Throws an error saying what differs when the answer is not one the document describes. */
  check(request: CheckedRequest, answer: ReceivedAnswer): void {
    const url = new URL(request.url);
    const what = `${request.method} ${url.pathname} → ${answer.status}`;
    const fail = (reason: string): never => {
      throw new Error(
        `answer not described by openapi.json: ${what}: ${reason}; body: ${answer.body.slice(0, 300)}`,
      );
    };
    if (this.isPreflight(request)) return this.checkPreflight(request, answer, fail);
    this.checkCors(request, answer, fail);
    const route =
      this.routes.find(
        (r) => r.exact && r.method === request.method && r.pattern.test(url.pathname),
      ) ?? this.routes.find((r) => r.method === request.method && r.pattern.test(url.pathname));
    let response: Response;
    if (route) {
      const paths = this.document.paths as Record<string, Record<string, Operation>>;
      const operation = paths[route.path]![route.method.toLowerCase()]!;
      const documented = operation.responses[String(answer.status)];
      if (!documented) {
        return fail(
          `status ${answer.status} is not listed for ${route.method} ${route.path} (listed: ${Object.keys(operation.responses).join(', ')})`,
        );
      }
      response = documented;
    } else {
      // Without a route, only what the gateway decides before routing: the 404 itself, or a
      // refusal to take the request at all (too many in flight, headers too large).
      const components = this.document.components as {
        responses: Record<string, Response>;
        schemas: Record<string, Json>;
      };
      if (answer.status === 404) response = components.responses.GatewayNotFound!;
      else if (BEFORE_ROUTING.has(answer.status)) response = GATEWAY_ONLY;
      else return fail('no operation has this method and path: only the gateway 404 (or 429, 431)');
    }
    this.checkHeaders(response, answer, fail);
    this.checkBody(response, answer, fail);
  }

  private isPreflight(request: CheckedRequest): boolean {
    return (
      request.method === 'OPTIONS' &&
      !!request.headers.origin &&
      !!request.headers['access-control-request-method']
    );
  }

  private get cors() {
    return this.document['x-amazon-apigateway-cors'] as {
      allowOrigins: string[];
      allowMethods: string[];
      allowHeaders: string[];
      exposeHeaders: string[];
      maxAge: number;
    };
  }

  private allows(origin: string): boolean {
    return this.cors.allowOrigins.includes('*') || this.cors.allowOrigins.includes(origin);
  }

  /** A preflight is answered 204 with no body and, for an allowed origin, exactly the CORS configuration. */
  private checkPreflight(
    request: CheckedRequest,
    answer: ReceivedAnswer,
    fail: (reason: string) => never,
  ): void {
    if (answer.status !== 204) fail('a CORS preflight is answered 204');
    if (answer.body !== '') fail('a CORS preflight has no body');
    if (!this.allows(request.headers.origin!)) return;
    const list = (value: string | undefined) =>
      (value ?? '')
        .split(',')
        .map((item) => item.trim().toLowerCase())
        .filter(Boolean)
        .sort()
        .join(',');
    const expected = {
      'access-control-allow-methods': list(this.cors.allowMethods.join(',')),
      'access-control-allow-headers': list(this.cors.allowHeaders.join(',')),
    };
    for (const [name, value] of Object.entries(expected)) {
      if (list(answer.headers[name]) !== value) fail(`${name} is not ${value}`);
    }
    if (answer.headers['access-control-max-age'] !== String(this.cors.maxAge))
      fail(`access-control-max-age is not ${this.cors.maxAge}`);
  }

  /** Every answer to a request from an allowed origin lets that origin read it. */
  private checkCors(
    request: CheckedRequest,
    answer: ReceivedAnswer,
    fail: (reason: string) => never,
  ): void {
    const origin = request.headers.origin;
    if (!origin || !this.allows(origin)) return;
    const allowed = answer.headers['access-control-allow-origin'];
    if (allowed !== '*' && allowed !== origin)
      fail(`access-control-allow-origin is ${allowed ?? 'missing'} for origin ${origin}`);
    const exposed = (answer.headers['access-control-expose-headers'] ?? '').toLowerCase();
    for (const name of this.cors.exposeHeaders) {
      if (
        !exposed
          .split(',')
          .map((item) => item.trim())
          .includes(name)
      )
        fail(`access-control-expose-headers does not name ${name}`);
    }
  }

  private checkHeaders(
    response: Response,
    answer: ReceivedAnswer,
    fail: (reason: string) => never,
  ): void {
    for (const [name, header] of Object.entries(response.headers ?? {})) {
      const value = answer.headers[name.toLowerCase()];
      if (value === undefined) {
        if (header.required) fail(`header ${name} is required`);
        continue;
      }
      const parsed = /^-?\d+$/.test(value) ? Number(value) : value;
      const validate = this.validator(header.schema);
      if (!validate(parsed)) fail(`header ${name}: ${this.ajv.errorsText(validate.errors)}`);
    }
  }

  private checkBody(
    response: Response,
    answer: ReceivedAnswer,
    fail: (reason: string) => never,
  ): void {
    if (!response.content) {
      if (answer.body !== '') fail('the document says this answer has no body');
      return;
    }
    const mediaType = (answer.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    const media = response.content[mediaType];
    if (!media)
      return fail(
        `content-type ${mediaType || 'missing'} is not one of ${Object.keys(response.content).join(', ')}`,
      );
    let parsed: JsonValue;
    try {
      parsed = parseJson(answer.body);
    } catch (error) {
      return fail(`the body is not JSON (${String(error)})`);
    }
    const big: bigint[] = [];
    const body = plain(parsed, big);
    const validate = this.validator(media.schema);
    if (!validate(body)) fail(this.ajv.errorsText(validate.errors, { dataVar: 'body' }));
    const outside = big.find((n) => n < INT64.min || n > INT64.max);
    if (outside !== undefined) fail(`${outside} is not an int64`);
  }

  /** Compiles a schema of the document, with the document's components for its `$ref`s. */
  private validator(schema: Json): ValidateFunction {
    let validate = this.compiled.get(schema);
    if (!validate) {
      validate = this.ajv.compile({
        allOf: [schema],
        components: this.document.components,
      } as object);
      this.compiled.set(schema, validate);
    }
    return validate;
  }
}
