/**
 * What the OpenAPI document says about each route of `lib/definitions/api.ts`: its summary, parameters,
 * request body and the answers its function gives. The gateway's own answers are added to every
 * route by `document.ts`. Describing a new route is one entry in `OPERATIONS` (and its body
 * schemas in `BODY_SCHEMAS`); generation fails for a route without one.
 */
import * as v from 'valibot';
import { MAX_BODY_BYTES } from '../../../lambda/create-plant/request';
import { PLANTS_DELETE, PLANTS_READ, PLANTS_WRITE } from '../../../lambda/tokens/principal';
import {
  PAGE_LIMIT,
  PLANT_FIELDS_IN_WORDS,
  PLANT_TEXT_LIMITS,
} from '../../../lambda/plants/schemas';
import { EXAMPLE_PLANT } from '../../definitions/example-plant';
import {
  commonAnswers,
  error,
  ETAG,
  ID_ERROR,
  ID_MESSAGE,
  IF_MATCH,
  IF_NONE_MATCH,
  NOT_FOUND,
  PLANT_ID,
  PRECONDITION_FAILED,
  NOT_JSON,
  TOO_LARGE,
} from './answers';
import { CHANGE_OPERATIONS } from './change-operations';
import type { OperationDescription, ParameterDescription, RouteKey } from './descriptions';
import { FIELD_RULES, OPTIONAL_ONLY_IF_SET, SAME_FIELDS } from './plant-words';

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

/** Every route's description, by `METHOD /path` as in `lib/definitions/api.ts`. */
export const OPERATIONS: Readonly<Record<RouteKey, OperationDescription>> = {
  'POST /plants': {
    operationId: 'createPlant',
    summary: 'Create a plant',
    description: [
      'Creates a new plant in the store. Needs the scope `plants:write`.',
      '',
      `Send \`Content-Type: application/json\` (or any \`application/*+json\`; parameters allowed, a charset other than utf-8 is 415) and one JSON object of at most ${MAX_BODY_BYTES} bytes. \`id\` is an integer from -9223372036854775808 to 9223372036854775807 in any JSON spelling of an integer (\`5\`, \`5.0\`, \`5e0\`), kept exactly: never through a float64. ${FIELD_RULES}; a character is a Unicode code point, as \`maxLength\` counts (an emoji is one). Other members are ignored; a member that appears twice is a 400.`,
      '',
      'Checks run in this order: scope (403), content type (415), size (413), JSON syntax (400), fields (400), store (200/409/503). Nothing is written unless the answer is 200.',
      '',
      `A safe retry: sending the same id with the same ${SAME_FIELDS} again answers 200 and writes nothing.`,
    ].join('\n'),
    requestBody: { description: 'The plant to create.', body: 'NewPlant' },
    answers: {
      200: {
        description: `plant response: the plant was created, or the same id was already stored with the same ${SAME_FIELDS} (nothing written). The body is the Plant: no id; ${OPTIONAL_ONLY_IF_SET}.`,
        body: 'Plant',
        example: { name: EXAMPLE_PLANT.name, tag: EXAMPLE_PLANT.tag },
      },
      400: {
        description: `unexpected error: the body is not JSON, not an object, repeats a member, or breaks a field rule. The message names every offending field and its rule, e.g. \`id: required; name: must be a string\` or \`name: must be at most ${PLANT_TEXT_LIMITS.name} characters\`. A create that repeats a plant stored before the limits existed, and longer than they allow, is a 400 too.`,
        body: 'Error',
        example: error(400, 'id: required; name: must be a string'),
      },
      ...commonAnswers(PLANTS_WRITE),
      409: {
        description: `The id is already taken by a plant with another ${PLANT_FIELDS_IN_WORDS}. Do not retry: choose another id.`,
        body: 'Error',
        example: error(
          409,
          `id: ${EXAMPLE_PLANT.id} is already taken by a plant with another ${PLANT_FIELDS_IN_WORDS}`,
        ),
      },
      413: TOO_LARGE,
      415: NOT_JSON,
    },
  },
  'GET /plants/{id}': {
    operationId: 'getPlant',
    summary: 'Read a plant',
    description: [
      'Answers the plant stored under `id`, with its id, and its version as `ETag`. Needs the scope `plants:read`. One strongly consistent read: a plant is readable as soon as its POST has answered.',
      '',
      'With `If-None-Match` naming the stored version, 304 without a body.',
      '',
      'Checks run in this order: scope (403), `id` and `If-None-Match` (400), store (200/304/404/503).',
    ].join('\n'),
    parameters: [PLANT_ID, IF_NONE_MATCH],
    answers: {
      200: {
        description:
          'The plant: `id` as a JSON integer with every digit (never a string, never through a float64); `tag` only if the plant has one. `ETag` is its version.',
        body: 'StoredPlant',
        example: EXAMPLE_PLANT,
        headers: { ETag: ETAG },
      },
      304: {
        description: '`If-None-Match` names the stored version: no body; `ETag` is that version.',
        headers: { ETag: ETAG },
      },
      400: {
        description: `The path id is not an int64's canonical spelling: ${ID_MESSAGE}; or \`If-None-Match\` is no list of entity tags.`,
        body: 'Error',
        example: ID_ERROR,
      },
      ...commonAnswers(PLANTS_READ),
      404: {
        description: 'No plant has this id: `no plant with id N`.',
        body: 'Error',
        example: NOT_FOUND,
      },
    },
  },
  'GET /plants': {
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
        example: error(
          400,
          `limit: must be an integer from ${PAGE_LIMIT.min} to ${PAGE_LIMIT.max}`,
        ),
      },
      ...commonAnswers(PLANTS_READ),
    },
  },
  'DELETE /plants/{id}': {
    operationId: 'deletePlant',
    summary: 'Delete a plant',
    description: [
      'Deletes the plant stored under `id`. Needs the scope `plants:delete`, which tokens get only when asked for. With `If-Match`, only while the plant is at a version it names (412 otherwise, nothing deleted). Two writes: an UpdateItem marks the plant deleted (so that the deletion, with its version, reaches `plantDeleted` subscribers), then a DeleteItem removes it. After a delete the id is free: POST may create it again.',
      '',
      'Checks run in this order: scope (403), `id` and `If-Match` (400), store (204/404/412/503).',
    ].join('\n'),
    parameters: [PLANT_ID, IF_MATCH],
    answers: {
      204: { description: 'The plant was deleted. No body.' },
      400: {
        description: `The path id is not an int64's canonical spelling: ${ID_MESSAGE}; or \`If-Match\` is no list of entity tags.`,
        body: 'Error',
        example: ID_ERROR,
      },
      ...commonAnswers(PLANTS_DELETE),
      404: {
        description: 'No plant had this id: `no plant with id N`. Nothing was deleted.',
        body: 'Error',
        example: NOT_FOUND,
      },
      412: PRECONDITION_FAILED,
    },
  },
  ...CHANGE_OPERATIONS,
};
