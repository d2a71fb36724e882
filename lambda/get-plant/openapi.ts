/**
 * GET /plants/{id} in the OpenAPI document: its summary, parameters, body and the answers the function
 * gives (the gateway's own are added to every route by lib/generators/openapi/document.ts).
 */
import {
  commonAnswers,
  ETAG,
  ID_ERROR,
  ID_MESSAGE,
  IF_MATCH_READ,
  IF_NONE_MATCH,
  NOT_FOUND,
  PLANT_ID,
  PRECONDITION_FAILED,
} from '../plants/openapi/answers';
import type { OperationDescription } from '../plants/openapi/descriptions';
import { EXAMPLE_PLANT } from '../plants/example-plant';
import { PLANTS_READ } from '../tokens/principal';

/** What the API reference says of GET /plants/{id} (the registry's descriptor carries it). */
export const GET_PLANT_OPENAPI: OperationDescription = {
  operationId: 'getPlant',
  summary: 'Read a plant',
  description: [
    'Answers the plant stored under `id`, with its id, and its version as `ETag`. Needs the scope `plants:read`. One strongly consistent read: a plant is readable as soon as its POST has answered.',
    '',
    'With `If-Match` naming none of its versions, 412; else with `If-None-Match` naming the stored version, 304 without a body.',
    '',
    'Checks run in this order: scope (403), `id`, `If-Match` and `If-None-Match` (400), store (200/304/404/412/503).',
  ].join('\n'),
  parameters: [PLANT_ID, IF_MATCH_READ, IF_NONE_MATCH],
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
      description: `The path id is not an int64's canonical spelling: ${ID_MESSAGE}; or \`If-Match\` or \`If-None-Match\` is no list of entity tags.`,
      body: 'Error',
      example: ID_ERROR,
    },
    ...commonAnswers(PLANTS_READ),
    404: {
      description: 'No plant has this id: `no plant with id N`.',
      body: 'Error',
      example: NOT_FOUND,
    },
    412: {
      ...PRECONDITION_FAILED,
      description:
        "`If-Match` names none of the plant's versions: `plant N is at version V`, and `ETag` is the stored version.",
    },
  },
};
