/**
 * The pieces of the OpenAPI document's answers that several operations share: the example
 * plant, the Error bodies, the answers every function gives (403, 500, 503), the path id, and
 * the version's validators (`ETag`, `If-Match`, `If-None-Match`, and the 304 and 412 they lead to).
 */
import * as v from 'valibot';
import { RETRY_AFTER_SECONDS, SERVER_MESSAGES } from '../../http/answers';
import { lacksScopeMessage, revisionMessage, type ScopeNeed } from '../../tokens/principal';
import { MAX_BODY_BYTES, MERGE_PATCH } from '../json-body';
import { MAX_TAGS } from '../versions';
import { Int64 } from '../schemas';
import { EXAMPLE_PLANT } from '../example-plant';
import type { AnswerDescription, HeaderDescription, ParameterDescription } from './descriptions';

/** An Error body as the function writes it. */
export const error = (status: number, message: string) => ({ error: status, message });

/** `Retry-After` on the function's 503. */
export const RETRY_AFTER: HeaderDescription = {
  description: `Seconds to wait before retrying (${RETRY_AFTER_SECONDS}). Set on the function's 503 (Error body); the gateway's own 503 has none.`,
  schema: v.pipe(v.number(), v.integer(), v.minValue(0)),
};

/**
 * The answers every function gives when a scope is missing (or, for a `ScopeNeed`, the token was
 * made before its scope covered the operation), on a bug, and when the store is down; an
 * operation that `writes` also says when its 503 may follow a write that was made.
 */
export function commonAnswers(
  need: string | ScopeNeed,
  writes = false,
): Record<number, AnswerDescription> {
  const scope = typeof need === 'string' ? need : need.scope;
  const older =
    typeof need === 'string'
      ? ''
      : `, or was made before ${need.release}, when \`${scope}\` did not cover this operation (\`${revisionMessage(need)}\`): a new token does`;
  return {
    403: {
      description: `The token is valid but lacks the scope \`${scope}\`${older}. The message says which.`,
      body: 'Error',
      example: error(403, lacksScopeMessage(scope)),
    },
    500: {
      description:
        'A bug in the function. The message says nothing of internals; the service log has them with the request id (`apigw-requestid`).',
      body: 'Error',
      example: error(500, SERVER_MESSAGES[500]!),
    },
    503: {
      description: writes
        ? 'The store is throttled or unreachable after retries, and nothing was written; or the store did not answer whether the write was made, and reading the plant did not tell: then it may have been made (and written over since), and may still be made within seconds. Retry after `Retry-After` seconds; repeat a change with `If-Match`, after reading the plant to see whether it is there.'
        : 'The store is throttled or unreachable after retries. Nothing was written; retry after `Retry-After` seconds.',
      body: 'Error',
      example: error(503, SERVER_MESSAGES[503]!),
      headers: { 'Retry-After': RETRY_AFTER },
    },
  };
}

/** The message of a 400 for a path id that is not an int64's canonical spelling. */
export const ID_MESSAGE =
  '`id: must be an integer from -9223372036854775808 to 9223372036854775807`';

/** The 400 and the 404 of the routes with a path id, for the example id. */
export const ID_ERROR = error(
  400,
  'id: must be an integer from -9223372036854775808 to 9223372036854775807',
);
export const NOT_FOUND = error(404, `no plant with id ${EXAMPLE_PLANT.id}`);

/** `{id}` of `/plants/{id}`: the canonical decimal spelling of an int64. */
export const PLANT_ID: ParameterDescription = {
  name: 'id',
  in: 'path',
  description:
    'Identification number of the plant: the canonical decimal spelling of an int64 (`0`, `42`, `-7`; no `+`, no leading zeros, no exponent, no fraction), after percent-decoding.',
  required: true,
  schema: v.pipe(Int64, v.metadata({ examples: [9007199254740993n] })),
};

/** `ETag` of an answer that carries a plant: its version, a strong validator. */
export const ETAG: HeaderDescription = {
  description:
    'The plant\'s version as a strong entity tag: `"1"` when created, one more after each change that changes something; a plant created again after a delete continues from its deletion\'s version, so an ETag never names two plants of one id. Send it back in `If-Match` to change or delete only that version, or in `If-None-Match` to read only a newer one.',
  schema: v.pipe(v.string(), v.regex(/^"[1-9]\d*"$/), v.examples(['"3"'])),
};

/** `If-Match` of PUT, PATCH and DELETE. */
export const IF_MATCH: ParameterDescription = {
  name: 'If-Match',
  in: 'header',
  description: `Apply only if the plant is at one of these versions: \`*\` (any version: the plant exists) or a comma-separated list of at most ${MAX_TAGS} entity tags from \`ETag\`, e.g. \`"3"\`, compared strongly (a weak tag \`W/"3"\` never matches). Otherwise 412 and nothing changes. A value that is no list of entity tags is 400. Without it the request applies to whatever version is stored, still atomically.`,
  required: false,
  schema: v.pipe(v.string(), v.examples(['"3"'])),
};

/** `If-Match` of GET one. */
export const IF_MATCH_READ: ParameterDescription = {
  name: 'If-Match',
  in: 'header',
  description:
    'Answer only if the plant is at one of these versions: `*` (any) or a comma-separated list of entity tags from `ETag`, compared strongly; otherwise 412. Judged before `If-None-Match`.',
  required: false,
  schema: v.pipe(v.string(), v.examples(['"3"'])),
};

/** `If-None-Match` of PUT, PATCH and DELETE. */
export const IF_NONE_MATCH_WRITE: ParameterDescription = {
  name: 'If-None-Match',
  in: 'header',
  description:
    'Apply only if the plant is at none of these versions: a comma-separated list of entity tags from `ETag` (compared weakly), or `*`, which no plant that exists passes (412: a change never creates a plant, so `*` only ever refuses).',
  required: false,
  schema: v.pipe(v.string(), v.examples(['"3"'])),
};

/** `If-None-Match` of GET one. */
export const IF_NONE_MATCH: ParameterDescription = {
  name: 'If-None-Match',
  in: 'header',
  description:
    'Answer 304 (no body) if the plant is at one of these versions: `*` or a comma-separated list of entity tags from `ETag` (compared weakly: `W/"3"` matches `"3"`).',
  required: false,
  schema: v.pipe(v.string(), v.examples(['"3"'])),
};

/** The 412 of a write whose `If-Match` names another version than the stored one. */
export const PRECONDITION_FAILED: AnswerDescription = {
  description:
    "`If-Match` names none of the plant's versions, or `If-None-Match` names its version (`*`: any): `plant N is at version V`, and `ETag` is the stored version. Nothing changed. Read the plant again, apply your change to it, and send it with the new `ETag`.",
  body: 'Error',
  example: error(412, `plant ${EXAMPLE_PLANT.id} is at version 2`),
  headers: { ETag: ETAG },
};

/** 413 of an operation that takes a body: it is over the size limit. */
export const TOO_LARGE: AnswerDescription = {
  description: `The body is larger than ${MAX_BODY_BYTES} bytes (256 KiB).`,
  body: 'Error',
  example: error(413, `body: must be at most ${MAX_BODY_BYTES} bytes; got ${MAX_BODY_BYTES + 1}`),
};

/** 415 of an operation that takes a body: its content type is not JSON. */
export const NOT_JSON: AnswerDescription = {
  description: 'The content type is not JSON (`application/json` or `application/*+json`).',
  body: 'Error',
  example: error(415, 'content-type text/plain is not accepted; send application/json'),
};

/** 415 of PUT: its content type is not JSON, or is a patch document. */
export const NOT_A_PLANT: AnswerDescription = {
  ...NOT_JSON,
  description: `The content type is not JSON (\`application/json\` or \`application/*+json\`), or is a patch document (\`application/json-patch+json\`, \`${MERGE_PATCH}\`: use PATCH).`,
};

/** 415 of PATCH: its content type is not a merge patch; `Accept-Patch` says what is. */
export const NOT_MERGE_PATCH: AnswerDescription = {
  description: `The content type is neither \`${MERGE_PATCH}\` nor \`application/json\` (JSON Patch, \`application/json-patch+json\`, is not supported). \`Accept-Patch\` names the patch format taken.`,
  body: 'Error',
  example: error(
    415,
    `content-type text/plain is not accepted; send ${MERGE_PATCH} or application/json`,
  ),
  headers: {
    'Accept-Patch': {
      description: 'The patch format PATCH takes (RFC 5789 section 3.1).',
      schema: v.pipe(v.string(), v.examples([MERGE_PATCH])),
    },
  },
};
