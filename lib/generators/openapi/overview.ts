/**
 * What the gateway answers on its own, and the overview at the top of the document: what a
 * client writer must know before the operations.
 */
import { TOKEN_PREFIX } from '../../../lambda/tokens/token';
import { MAX_INVOKE_PAYLOAD_BYTES, type ApiDefinition } from '../../definitions/api';
import { SAME_FIELDS } from '../../../lambda/plants/openapi/plant-words';

/** Where `npm start` listens unless `PORT` says otherwise. */
export const LOCAL_DEFAULT_PORT = '3000';

/** What the gateway answers itself on any route, with a `GatewayMessage`. */
export function gatewayAnswers(
  api: ApiDefinition,
): Record<number, { message: string; when: string }> {
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
      when: `the request is larger than the gateway's ${api.maxPayloadBytes / 1024 / 1024} MB, or the event it makes larger than Lambda's ${MAX_INVOKE_PAYLOAD_BYTES / 1024 / 1024} MB`,
    },
    429: {
      message: 'Too Many Requests',
      when: 'the stage is throttling requests, or has too many in flight',
    },
    431: {
      message: 'Request Header Fields Too Large',
      when: 'the request line and headers are larger than 10,240 bytes',
    },
    500: {
      message: 'Internal Server Error',
      when: 'the authorizer or the function failed, timed out, was throttled or answered something malformed',
    },
    503: {
      message: 'Service Unavailable',
      when: `the function did not answer within ${api.integrationTimeoutSeconds} s`,
    },
  };
}

/** The gateway's answer to a method and path that no route has. */
export const GATEWAY_NOT_FOUND = {
  message: 'Not Found',
  when: 'no route has this method and path (a trailing slash does not match; there is no 405)',
};

/** The statuses only a route behind the authorizer can answer. */
export const AUTHORIZER_STATUSES = new Set([401, 403]);

/** The description at the top of the document: what a client writer must know first. */
export function overview(api: ApiDefinition): string {
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
    `**Retries.** Retry a 503 after \`Retry-After\` seconds and a 429 or the gateway 500/503 with backoff. Creating a plant is safe to retry with the same body: the same id with the same ${SAME_FIELDS} answers 200 and writes nothing. Never retry a 409 or another 4xx unchanged.`,
    '',
    `**CORS.** \`x-amazon-apigateway-cors\` says what the gateway allows (the origins are the default; a deployment may narrow them). A preflight (\`OPTIONS\` with \`Origin\` and \`Access-Control-Request-Method\`) is answered 204 without a token.`,
    '',
    `**Servers.** The first is \`npm start\` on this machine (port ${LOCAL_DEFAULT_PORT} unless \`PORT\` says otherwise); the second a deployed stack, whose \`ApiUrl\` output is the URL.`,
  ].join('\n');
}
