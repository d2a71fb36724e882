/**
 * PUT /plants/{id} in the OpenAPI document (the answers it shares with the other change: lambda/plants/openapi/change.ts).
 */
import { MAX_BODY_BYTES } from '../plants/json-body';
import {
  error,
  ID_MESSAGE,
  IF_MATCH,
  IF_NONE_MATCH_WRITE,
  NOT_A_PLANT,
  PLANT_ID,
} from '../plants/openapi/answers';
import { changeAnswers, changeDescription } from '../plants/openapi/change';
import type { OperationDescription } from '../plants/openapi/descriptions';
import { FIELD_RULES } from '../plants/openapi/plant-words';
import { EXAMPLE_PLANT } from '../plants/example-plant';

/** What the API reference says of PUT /plants/{id} (the registry's descriptor carries it). */
export const UPDATE_PLANT_OPENAPI: OperationDescription = {
  operationId: 'updatePlant',
  summary: 'Replace a plant',
  description: changeDescription(
    "Replaces the members of the plant stored under `id` (all but its id) with the body's: a member left out is removed. One conditional UpdateItem.",
    `The body follows POST's rules: JSON (\`application/json\` or any \`application/*+json\` but a patch document: \`application/json-patch+json\` and \`application/merge-patch+json\` are 415) of at most ${MAX_BODY_BYTES} bytes, ${FIELD_RULES}; other members are ignored, a member that appears twice is a 400. An \`id\` may be sent and must equal the path's.`,
  ),
  parameters: [PLANT_ID, IF_MATCH, IF_NONE_MATCH_WRITE],
  requestBody: {
    description: "The plant's new members.",
    body: 'PlantReplacement',
    example: { name: EXAMPLE_PLANT.name, tag: EXAMPLE_PLANT.tag },
  },
  answers: {
    ...changeAnswers(NOT_A_PLANT),
    400: {
      description: `The path id is not an int64's canonical spelling (${ID_MESSAGE}), \`If-Match\` or \`If-None-Match\` is no list of entity tags, or the body is not JSON, not an object, repeats a member, breaks a field rule or names another id. The message names every offending field and its rule.`,
      body: 'Error',
      example: error(400, 'name: required'),
    },
  },
};
