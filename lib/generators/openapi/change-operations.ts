/**
 * What the OpenAPI document says about the changes of a plant, PUT and PATCH /plants/{id}:
 * both answer the plant and its new version, honour `If-Match`, and never create a plant.
 */
import { MAX_BODY_BYTES } from '../../../lambda/plants/json-body';
import { PLANTS_WRITE } from '../../../lambda/tokens/principal';
import {
  commonAnswers,
  error,
  ETAG,
  ID_MESSAGE,
  IF_MATCH,
  NOT_FOUND,
  PLANT_ID,
  PRECONDITION_FAILED,
  NOT_JSON,
  TOO_LARGE,
} from './answers';
import { EXAMPLE_PLANT } from '../../definitions/example-plant';
import type { AnswerDescription, OperationDescription, RouteKey } from './descriptions';
import { FIELD_RULES, OPTIONAL_ONLY_IF_SET } from './plant-words';

const ORDER =
  'Checks run in this order: scope (403), `id` and `If-Match` (400), content type (415), size (413), JSON syntax (400), fields (400), store (200/404/412/503). Nothing is written unless the answer is 200.';

const VERSIONS =
  "Each change raises the version by one (`ETag`), also when it repeats what is stored. With `If-Match`, it applies only while the plant is at a version named there: of concurrent changes sent with the same `If-Match`, one is 200 and the others 412, so no change is lost. Without it, the change applies to whatever is stored, atomically (never a partial write). The plant's `createdAt` is kept; `plantUpdated` subscribers are told.";

/** The answers PUT and PATCH share, besides their 400. */
function changeAnswers(): Record<number, AnswerDescription> {
  return {
    200: {
      description: `The plant after the change: \`id\` with every digit, ${OPTIONAL_ONLY_IF_SET}. \`ETag\` is its new version.`,
      body: 'StoredPlant',
      example: EXAMPLE_PLANT,
      headers: { ETag: ETAG },
    },
    ...commonAnswers(PLANTS_WRITE),
    404: {
      description:
        'No plant has this id: `no plant with id N`. A change never creates a plant (POST does). Preconditions count only for a plant that is there, so this comes before 412.',
      body: 'Error',
      example: NOT_FOUND,
    },
    412: PRECONDITION_FAILED,
    413: TOO_LARGE,
    415: NOT_JSON,
  };
}

/** PUT and PATCH /plants/{id}. */
export const CHANGE_OPERATIONS: Readonly<Record<RouteKey, OperationDescription>> = {
  'PUT /plants/{id}': {
    operationId: 'updatePlant',
    summary: 'Replace a plant',
    description: [
      "Replaces the members of the plant stored under `id` (all but its id) with the body's: a member left out is removed. Needs the scope `plants:write`. One conditional UpdateItem.",
      '',
      `The body follows POST's rules: JSON (\`application/json\` or any \`application/*+json\`) of at most ${MAX_BODY_BYTES} bytes, ${FIELD_RULES}; other members are ignored, a member that appears twice is a 400. An \`id\` may be sent and must equal the path's.`,
      '',
      VERSIONS,
      '',
      ORDER,
    ].join('\n'),
    parameters: [PLANT_ID, IF_MATCH],
    requestBody: { description: "The plant's new members.", body: 'PlantReplacement' },
    answers: {
      ...changeAnswers(),
      400: {
        description: `The path id is not an int64's canonical spelling (${ID_MESSAGE}), \`If-Match\` is no list of entity tags, or the body is not JSON, not an object, repeats a member, breaks a field rule or names another id. The message names every offending field and its rule.`,
        body: 'Error',
        example: error(400, 'name: required'),
      },
    },
  },
  'PATCH /plants/{id}': {
    operationId: 'patchPlant',
    summary: 'Change some members of a plant',
    description: [
      'Applies a JSON Merge Patch (RFC 7396) to the plant stored under `id`: a member set to a string is set, a member set to `null` is removed (`{"tag":null}`; `name` cannot be removed: `{"name":null}` is a 400), a member left out stays. Needs the scope `plants:write`. One conditional UpdateItem.',
      '',
      `Send \`application/merge-patch+json\` (or \`application/json\`), at most ${MAX_BODY_BYTES} bytes; each string member follows POST's rules (${FIELD_RULES}). An \`id\` may be sent and must equal the path's.`,
      '',
      VERSIONS,
      '',
      ORDER,
    ].join('\n'),
    parameters: [PLANT_ID, IF_MATCH],
    requestBody: {
      description: 'The merge patch.',
      body: 'PlantPatch',
      mediaTypes: ['application/merge-patch+json', 'application/json'],
    },
    answers: {
      ...changeAnswers(),
      400: {
        description: `The path id is not an int64's canonical spelling (${ID_MESSAGE}), \`If-Match\` is no list of entity tags, or the body is not JSON, not an object, repeats a member, breaks a field rule, removes \`name\` or names another id. The message names every offending field and its rule.`,
        body: 'Error',
        example: error(400, 'name: must be a string'),
      },
    },
  },
};
