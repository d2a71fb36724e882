/**
 * POST /plants in the OpenAPI document: its summary, parameters, body and the answers the function
 * gives (the gateway's own are added to every route by lib/generators/openapi/document.ts).
 */
import { MAX_BODY_BYTES } from './request';
import { commonAnswers, error, NOT_JSON, TOO_LARGE } from '../plants/openapi/answers';
import { FIELD_RULES, OPTIONAL_ONLY_IF_SET, SAME_FIELDS } from '../plants/openapi/plant-words';
import type { OperationDescription } from '../plants/openapi/descriptions';
import { EXAMPLE_PLANT } from '../plants/example-plant';
import { PLANT_FIELDS_IN_WORDS, PLANT_TEXT_LIMITS } from '../plants/schemas';
import { PLANTS_WRITE } from '../tokens/principal';

/** What the API reference says of POST /plants (the registry's descriptor carries it). */
export const CREATE_PLANT_OPENAPI: OperationDescription = {
  operationId: 'createPlant',
  summary: 'Create a plant',
  description: [
    'Creates a new plant in the store. Needs the scope `plants:write`.',
    '',
    `Send \`Content-Type: application/json\` (or any \`application/*+json\`; parameters allowed, a charset other than utf-8 is 415) and one JSON object of at most ${MAX_BODY_BYTES} bytes. \`id\` is an integer from -9223372036854775808 to 9223372036854775807 in any JSON spelling of an integer (\`5\`, \`5.0\`, \`5e0\`), kept exactly: never through a float64. ${FIELD_RULES}; a character is a Unicode code point, as \`maxLength\` counts (an emoji is one). Other members are ignored; a member that appears twice is a 400.`,
    '',
    'Checks run in this order: scope (403), content type (415), size (413), JSON syntax (400), fields (400), store (200/409/503). Nothing is written unless the answer is 200, or a 503 for a create the store did not confirm (see 503).',
    '',
    `A safe retry: sending the same id with the same ${SAME_FIELDS} again answers 200 and writes nothing.`,
  ].join('\n'),
  requestBody: { description: 'The plant to create.', body: 'NewPlant', example: EXAMPLE_PLANT },
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
    ...commonAnswers(PLANTS_WRITE, true),
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
};
