/**
 * The checker every e2e answer goes through: it accepts the answers the document describes and
 * refuses any other status, shape, media type, header or int64 — so a suite cannot pass on an
 * answer the document lacks.
 */
import { AnswerChecker, loadDocument, type ReceivedAnswer } from '../../support/openapi-answers';

const checker = new AnswerChecker();
const URL = 'http://127.0.0.1:9/plants';
const post = { method: 'POST', url: URL, headers: {} };
const json = (status: number, body: string, headers: Record<string, string> = {}) => ({
  status,
  headers: { 'content-type': 'application/json', ...headers },
  body,
});

describe('accepts what the document describes', () => {
  it.each<[string, ReceivedAnswer]>([
    ['200 Plant', json(200, '{"name":"Monstera","tag":"aroid"}')],
    ['400 Error', json(400, '{"error":400,"message":"id: required"}')],
    ['401 from the gateway', json(401, '{"message":"Unauthorized"}')],
    ['403 Error (scope)', json(403, '{"error":403,"message":"missing scope plants:write"}')],
    ['403 from the gateway', json(403, '{"message":"Forbidden"}')],
    ['413 from the gateway', json(413, '{"message":"Request Entity Too Large"}')],
    [
      '503 Error with Retry-After',
      json(503, '{"error":503,"message":"retry"}', { 'retry-after': '1' }),
    ],
    ['503 from the gateway', json(503, '{"message":"Service Unavailable"}')],
    [
      '200 with a charset',
      json(200, '{"name":"a"}', { 'content-type': 'application/json; charset=utf-8' }),
    ],
  ])('%s', (_, answer) => {
    expect(() => checker.check(post, answer)).not.toThrow();
  });

  it('the gateway 404 for a method and path no operation has', () => {
    const request = { method: 'PUT', url: URL, headers: {} };
    expect(() => checker.check(request, json(404, '{"message":"Not Found"}'))).not.toThrow();
  });

  it('a CORS preflight', () => {
    const request = {
      method: 'OPTIONS',
      url: URL,
      headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
    };
    const doc = loadDocument() as { 'x-amazon-apigateway-cors': Record<string, unknown> };
    const cors = doc['x-amazon-apigateway-cors'] as {
      allowMethods: string[];
      allowHeaders: string[];
      maxAge: number;
    };
    const answer = {
      status: 204,
      headers: {
        'access-control-allow-methods': cors.allowMethods.join(','),
        'access-control-allow-headers': cors.allowHeaders.join(','),
        'access-control-max-age': String(cors.maxAge),
      },
      body: '',
    };
    expect(() => checker.check(request, answer)).not.toThrow();
    expect(() =>
      checker.check(request, {
        ...answer,
        headers: { ...answer.headers, 'access-control-max-age': '1' },
      }),
    ).toThrow('access-control-max-age');
  });
});

describe('refuses anything else', () => {
  it.each<[string, ReceivedAnswer, string]>([
    [
      'a status the operation does not list',
      json(418, '{"error":418,"message":"x"}'),
      'status 418 is not listed',
    ],
    [
      'a Plant without its name',
      json(200, '{"tag":"aroid"}'),
      "must have required property 'name'",
    ],
    ['a Plant whose tag is null', json(200, '{"name":"a","tag":null}'), 'body/tag must be string'],
    [
      'an Error whose error is a string',
      json(400, '{"error":"400","message":"x"}'),
      'body/error must be integer',
    ],
    [
      'a gateway message with another member',
      json(401, '{"message":"Unauthorized","x":1}'),
      'must NOT have additional properties',
    ],
    ['a body that is not JSON', json(200, 'Monstera'), 'the body is not JSON'],
    [
      'a body that is not JSON media',
      { status: 200, headers: { 'content-type': 'text/plain' }, body: '{"name":"a"}' },
      'content-type text/plain',
    ],
    [
      'a Retry-After that is not a number',
      json(503, '{"error":503,"message":"x"}', { 'retry-after': 'soon' }),
      'header Retry-After',
    ],
  ])('%s', (_, answer, message) => {
    expect(() => checker.check(post, answer)).toThrow(message);
  });

  it('an answer other than 404 to a method and path no operation has', () => {
    const request = { method: 'GET', url: 'http://127.0.0.1:9/nothing', headers: {} };
    expect(() => checker.check(request, json(200, '{}'))).toThrow('only the gateway 404');
  });

  it('a missing allow-origin for an allowed origin', () => {
    const request = { ...post, headers: { origin: 'https://app.example' } };
    expect(() => checker.check(request, json(200, '{"name":"a"}'))).toThrow(
      'access-control-allow-origin',
    );
  });

  it('an int64 one past 2^63 - 1, which a float64 cannot tell apart, while keeping the edges', () => {
    // A document whose 200 carries an id, as NewPlant does.
    const doc = loadDocument() as never as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    doc.paths['/plants']!.post!.responses['200'] = {
      description: 'a plant with its id',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/NewPlant' } } },
    };
    const withIds = new AnswerChecker(doc as never);
    const body = (id: string) => json(200, `{"id":${id},"name":"a"}`);
    for (const id of ['9223372036854775807', '-9223372036854775808', '9007199254740993', '5.0']) {
      expect(() => withIds.check(post, body(id))).not.toThrow();
    }
    expect(() => withIds.check(post, body('9223372036854775808'))).toThrow('is not an int64');
    expect(() => withIds.check(post, body('-9223372036854775809'))).toThrow('is not an int64');
    expect(() => withIds.check(post, body('1.5'))).toThrow('body/id must be integer');
    expect(() => withIds.check(post, body('"1"'))).toThrow('body/id must be integer');
  });
});
