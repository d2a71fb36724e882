/**
 * GET /plants in the OpenAPI document: its summary, parameters, body and the answers the function
 * gives (the gateway's own are added to every route by lib/generators/openapi/document.ts).
 */
import * as v from 'valibot';
import { commonAnswers, error } from '../plants/openapi/answers';
import type { OperationDescription, ParameterDescription } from '../plants/openapi/descriptions';
import { EXAMPLE_PLANT } from '../plants/example-plant';
import { PAGE_LIMIT } from '../plants/schemas';
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

/** `cursor` of GET /plants. */
const CURSOR: ParameterDescription = {
  name: 'cursor',
  in: 'query',
  description:
    'The `next` of the previous page, unchanged; left out for the first page. Opaque: it only says where the walk resumes and grants nothing.',
  required: false,
  schema: v.pipe(v.string(), v.regex(/^[\w-]+$/)),
};

/** What the API reference says of GET /plants (the registry's descriptor carries it). */
export const LIST_PLANTS_OPENAPI: OperationDescription = {
  operationId: 'listPlants',
  summary: 'List plants, a page at a time',
  description: [
    'Answers at most `limit` plants and, while more may follow, `next`: pass it back as `cursor` for the next page. Needs the scope `plants:read`. One Scan per page.',
    '',
    'A page may be short or even empty while `next` is present; the walk ends only when `next` is absent. Order is unspecified, but a walk from the first page to the last returns every plant that existed for the whole walk exactly once. The cursor is opaque and grants nothing. Unknown query parameters are ignored.',
    '',
    'Checks run in this order: scope (403), `limit` and `cursor` (400, naming each), store (200/503).',
  ].join('\n'),
  parameters: [LIMIT, CURSOR],
  answers: {
    200: {
      description: 'One page of plants, and `next` while more may follow.',
      body: 'PlantPage',
      example: { plants: [EXAMPLE_PLANT] },
    },
    400: {
      description: `\`limit\` is not an integer from ${PAGE_LIMIT.min} to ${PAGE_LIMIT.max}, or \`cursor\` cannot be a \`next\` of this service (not decodable, not a key of the table): \`limit: must be an integer from 1 to 100\`, \`cursor: must be the next value of a previous page\`, joined by \`; \` when both.`,
      body: 'Error',
      example: error(400, `limit: must be an integer from ${PAGE_LIMIT.min} to ${PAGE_LIMIT.max}`),
    },
    ...commonAnswers(PLANTS_READ),
  },
};
