/**
 * A plant's members besides its id, each once. **Adding a field is one entry here**, whatever
 * its type (field-types.ts: a string with `maxLength`, a number with `minimum`, `maximum` and
 * `decimals`, or a boolean): the schemas (schemas.ts) are built from these entries, and so is
 * every mapping of a plant — the create answer, a retry's comparison and its 409, a change, the
 * table item and its reading back, the webhook bodies, the OpenAPI document, the client's types
 * (`npm run generate`), and the size figures (`lib/generators/plant-figures.ts`). A field added
 * later must be optional (stored plants lack it): test/generators/unit/openapi.test.ts guards
 * the seed's own.
 */
import type { PlantField } from './field-types';

export const PLANT_FIELDS = {
  name: {
    type: 'string',
    required: true,
    maxLength: 1000,
    description: 'The name of the plant',
    example: 'Monstera',
  },
  tag: {
    type: 'string',
    required: false,
    maxLength: 100,
    description: 'Tag that specifies the type of the plant',
    example: 'aroid',
  },
} as const satisfies Record<string, PlantField>;
