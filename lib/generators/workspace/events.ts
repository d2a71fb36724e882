/**
 * `events/<function>.json`, the events `sam local invoke -e` takes (and the bench's template): an
 * API function's event is its operation's example request (lib/definitions/example-request.ts:
 * its route, the example plant's id in the path, the body its OpenAPI text's example, whatever
 * the method; a token with its scope) when the folder has none. A committed event is kept as it is: one may be
 * tuned by hand (a query, a header), and a test holds each to its route.
 */
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../definitions/bundling';
import { exampleRequest } from '../../definitions/example-request';
import { FUNCTIONS, type FunctionName } from '../../definitions/functions';
import { SCOPES_REVISION } from '../../../lambda/tokens/principal';

/** Where the events are. */
export const EVENTS_DIR = join(PROJECT_ROOT, 'events');

/** The committed event of `name`. */
export const eventFile = (name: FunctionName): string => join(EVENTS_DIR, `${name}.json`);

/** A payload 2.0 event of API Gateway for the route of `name`; undefined if no route reaches it. */
export function routeEvent(name: FunctionName): object | undefined {
  const operation = FUNCTIONS[name].operation;
  if (!operation) return undefined;
  const { path, pathParameters, body, contentType } = exampleRequest(name);
  const host = 'abcdef1234.execute-api.eu-west-1.amazonaws.com';
  const routeKey = `${operation.method} ${operation.path}`;
  return {
    version: '2.0',
    routeKey,
    rawPath: path,
    rawQueryString: '',
    headers: {
      accept: '*/*',
      authorization: `Bearer pst_${'0'.repeat(43)}`,
      ...(body === undefined
        ? {}
        : {
            'content-length': String(Buffer.byteLength(body)),
            'content-type': contentType,
          }),
      host,
      'user-agent': 'curl/8.5.0',
      'x-amzn-trace-id': 'Root=1-6670b4a7-1c5e1a2b3c4d5e6f7a8b9c0d',
      'x-forwarded-for': '203.0.113.10',
      'x-forwarded-port': '443',
      'x-forwarded-proto': 'https',
    },
    requestContext: {
      accountId: '123456789012',
      apiId: 'abcdef1234',
      authorizer: {
        lambda: {
          tokenId: 'tok_example',
          name: 'example',
          scopes: operation.scope,
          scopesRevision: SCOPES_REVISION,
        },
      },
      domainName: host,
      domainPrefix: 'abcdef1234',
      http: {
        method: operation.method,
        path,
        protocol: 'HTTP/1.1',
        sourceIp: '203.0.113.10',
        userAgent: 'curl/8.5.0',
      },
      requestId: 'ZqwS2gQ6DoEEMhw=',
      routeKey,
      stage: '$default',
      time: '17/Jun/2024:15:52:39 +0000',
      timeEpoch: 1718639559000,
    },
    ...(body === undefined ? {} : { body }),
    ...(pathParameters ? { pathParameters } : {}),
    isBase64Encoded: false,
  };
}
