/**
 * DELETE /plants/{id} in the OpenAPI document: its summary, parameters, body and the answers the function
 * gives (the gateway's own are added to every route by lib/generators/openapi/document.ts).
 */
import {
  commonAnswers,
  ID_ERROR,
  ID_MESSAGE,
  IF_MATCH,
  IF_NONE_MATCH_WRITE,
  NOT_FOUND,
  PLANT_ID,
  PRECONDITION_FAILED,
} from '../plants/openapi/answers';
import type { OperationDescription } from '../plants/openapi/descriptions';
import { PLANTS_DELETE } from '../tokens/principal';

/** What the API reference says of DELETE /plants/{id} (the registry's descriptor carries it). */
export const DELETE_PLANT_OPENAPI: OperationDescription = {
  operationId: 'deletePlant',
  summary: 'Delete a plant',
  description: [
    `Deletes the plant stored under \`id\`. Needs the scope \`plants:delete\`, which tokens get only when asked for. With \`If-Match\`, only while the plant is at a version it names; with \`If-None-Match\`, only while it is at none (412 otherwise, nothing deleted). One write: an UpdateItem marks the plant deleted (so that the deletion, with its version, reaches \`plantDeleted\` subscribers, and a replay finds it) and keeps it for good as a tombstone of its id, version and times that no read, list or change sees. After a delete the id is free: POST may create it again, and the new plant's versions continue from the deletion's, so no ETag of the deleted plant matches it.`,
    '',
    'Checks run in this order: scope (403), `id`, `If-Match` and `If-None-Match` (400), store (204/404/412/503).',
  ].join('\n'),
  parameters: [PLANT_ID, IF_MATCH, IF_NONE_MATCH_WRITE],
  answers: {
    204: { description: 'The plant was deleted. No body.' },
    400: {
      description: `The path id is not an int64's canonical spelling: ${ID_MESSAGE}; or \`If-Match\` or \`If-None-Match\` is no list of entity tags.`,
      body: 'Error',
      example: ID_ERROR,
    },
    ...commonAnswers(PLANTS_DELETE, true),
    404: {
      description: 'No plant had this id: `no plant with id N`. Nothing was deleted.',
      body: 'Error',
      example: NOT_FOUND,
    },
    412: PRECONDITION_FAILED,
  },
};
