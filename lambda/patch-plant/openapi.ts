/**
 * PATCH /plants/{id} in the OpenAPI document (the answers it shares with the other change: lambda/plants/openapi/change.ts).
 */
import { MAX_BODY_BYTES } from '../plants/json-body';
import {
  error,
  ID_MESSAGE,
  IF_MATCH,
  IF_NONE_MATCH_WRITE,
  NOT_MERGE_PATCH,
  PLANT_ID,
} from '../plants/openapi/answers';
import { changeAnswers, changeDescription } from '../plants/openapi/change';
import type { OperationDescription } from '../plants/openapi/descriptions';
import { FIELD_RULES } from '../plants/openapi/plant-words';
import { EXAMPLE_PLANT } from '../plants/example-plant';

/** What the API reference says of PATCH /plants/{id} (the registry's descriptor carries it). */
export const PATCH_PLANT_OPENAPI: OperationDescription = {
  operationId: 'patchPlant',
  summary: 'Change some members of a plant',
  description: changeDescription(
    'Applies a JSON Merge Patch (RFC 7396) to the plant stored under `id`: a member set to a value is set, a member set to `null` is removed (`{"tag":null}`; `name` cannot be removed: `{"name":null}` is a 400), a member left out stays. One conditional UpdateItem.',
    `Send \`application/merge-patch+json\` (or \`application/json\`; any other type, JSON Patch among them, is 415 with \`Accept-Patch\`), at most ${MAX_BODY_BYTES} bytes; each member follows POST's rules (${FIELD_RULES}). An \`id\` may be sent and must equal the path's.`,
  ),
  parameters: [PLANT_ID, IF_MATCH, IF_NONE_MATCH_WRITE],
  requestBody: {
    description: 'The merge patch.',
    body: 'PlantPatch',
    example: { tag: EXAMPLE_PLANT.tag },
    mediaTypes: ['application/merge-patch+json', 'application/json'],
  },
  answers: {
    ...changeAnswers(NOT_MERGE_PATCH),
    400: {
      description: `The path id is not an int64's canonical spelling (${ID_MESSAGE}), \`If-Match\` or \`If-None-Match\` is no list of entity tags, or the body is not JSON, not an object, repeats a member, breaks a field rule, removes \`name\` or names another id. The message names every offending field and its rule.`,
      body: 'Error',
      example: error(400, 'name: must be a string'),
    },
  },
};
