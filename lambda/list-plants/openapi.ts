/**
 * GET /plants in the OpenAPI document: its summary, parameters, body and the answers the function
 * gives (the gateway's own are added to every route by lib/generators/openapi/document.ts).
 */
import * as v from 'valibot';
import { RETRY_AFTER_SECONDS } from '../http/answers';
import { commonAnswers, error, RETRY_AFTER } from '../plants/openapi/answers';
import type { OperationDescription, ParameterDescription } from '../plants/openapi/descriptions';
import { EXAMPLE_PLANT } from '../plants/example-plant';
import { INDEX_BUILDING_RETRY_AFTER_SECONDS } from '../plants/index-building';
import {
  CURSOR_RULES,
  INDEX_KEY_MAX_BYTES,
  LIST_TAG_RULE,
  PAGE_LIMIT,
  PLANT_TEXT_LIMITS,
} from '../plants/schemas';
import { PLANTS_READ } from '../tokens/principal';

/** `limit` of GET /plants. */
const LIMIT: ParameterDescription = {
  name: 'limit',
  in: 'query',
  description: `Plants per page at most: an integer from ${PAGE_LIMIT.min} to ${PAGE_LIMIT.max} in plain decimal; ${PAGE_LIMIT.default} when left out.`,
  required: false,
  schema: v.pipe(
    v.number(),
    v.integer(),
    v.minValue(PAGE_LIMIT.min),
    v.maxValue(PAGE_LIMIT.max),
    v.metadata({ default: PAGE_LIMIT.default }),
  ),
};

/** `tag` of GET /plants. */
const TAG: ParameterDescription = {
  name: 'tag',
  in: 'query',
  description: `Only the plants with this tag, in id order: not empty (an empty tag cannot key the index: a plant with one is in no tag list), and at most ${INDEX_KEY_MAX_BYTES} bytes in UTF-8, the longest key of a DynamoDB index (a create takes a tag of ${PLANT_TEXT_LIMITS.tag} characters at most; a plant stored before the limits may have a longer one, and is in no tag list if it is longer than the index takes). Percent-encode it as any query value.`,
  required: false,
  // A string of that many bytes has at most that many characters: a bound clients can check.
  schema: v.pipe(v.string(), v.minLength(1), v.maxLength(INDEX_KEY_MAX_BYTES)),
};

/** `cursor` of GET /plants. */
const CURSOR: ParameterDescription = {
  name: 'cursor',
  in: 'query',
  description:
    'The `next` of the previous page, unchanged; left out for the first page. Opaque: it only says where the walk resumes and grants nothing.',
  required: false,
  schema: v.pipe(v.string(), v.regex(/^[\w-]+$/)),
};

const common = commonAnswers(PLANTS_READ);

/** What the API reference says of GET /plants (the registry's descriptor carries it). */
export const LIST_PLANTS_OPENAPI: OperationDescription = {
  operationId: 'listPlants',
  summary: 'List plants, a page at a time (all, or those of one tag)',
  description: [
    'Answers at most `limit` plants and, while more may follow, `next`: pass it back as `cursor` for the next page. Needs the scope `plants:read`. One Scan per page.',
    '',
    'A page may be short or even empty while `next` is present; the walk ends only when `next` is absent. Order is unspecified, but a walk from the first page to the last returns every plant that existed for the whole walk exactly once. The cursor is opaque and grants nothing. Unknown query parameters are ignored.',
    '',
    'With `tag`, only the plants with that tag, in id order (ascending), one Query of the tag index per page, with the same paging and walk guarantee. The index is eventually consistent: a create, change or delete shows in a tag list a moment after it answers. A `next` is valid for the list that made it only: with the same `tag`, or without one.',
    '',
    `While a newly added index is still being built (the deploy that adds it returns before its backfill ends, which may take hours on a large table), a list by tag answers 503 with \`Retry-After: ${INDEX_BUILDING_RETRY_AFTER_SECONDS}\`, never a partial list; the list without \`tag\` answers as ever.`,
    '',
    'Checks run in this order: scope (403), `limit`, `tag` and `cursor` (400, naming each), store (200/503).',
  ].join('\n'),
  parameters: [LIMIT, TAG, CURSOR],
  answers: {
    200: {
      description: 'One page of plants, and `next` while more may follow.',
      body: 'PlantPage',
      example: { plants: [EXAMPLE_PLANT] },
    },
    400: {
      description: `\`limit\` is not an integer from ${PAGE_LIMIT.min} to ${PAGE_LIMIT.max}, \`tag\` is empty or too long, or \`cursor\` cannot be a \`next\` of this service (not decodable, not a key of the table) or is the \`next\` of another list (another tag, a tag list's without \`tag\`, the plain list's with one): \`limit: must be an integer from 1 to 100\`, \`tag: ${LIST_TAG_RULE}\`, \`cursor: ${CURSOR_RULES.any}\`, \`cursor: ${CURSOR_RULES.sameList}\`, joined by \`; \` when several.`,
      body: 'Error',
      example: error(400, `limit: must be an integer from ${PAGE_LIMIT.min} to ${PAGE_LIMIT.max}`),
    },
    ...common,
    503: {
      ...common[503]!,
      headers: {
        'Retry-After': {
          ...RETRY_AFTER,
          description: `Seconds to wait before retrying: ${RETRY_AFTER_SECONDS}, or ${INDEX_BUILDING_RETRY_AFTER_SECONDS} while the tag index is being built. Set on the function's 503 (Error body); the gateway's own 503 has none.`,
        },
      },
      description: `The store is throttled or unreachable after retries; or, with \`tag\`, the tag index is still being built after an upgrade added it (\`Retry-After: ${INDEX_BUILDING_RETRY_AFTER_SECONDS}\`, until the index is ACTIVE). Retry after \`Retry-After\` seconds.`,
    },
  },
};
