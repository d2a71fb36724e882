/**
 * What the OpenAPI document says of both changes of a plant, PUT and PATCH /plants/{id}: both
 * answer the plant and its new version, honour `If-Match`, and never create a plant.
 */
import { PLANTS_WRITE } from '../../tokens/principal';
import {
  commonAnswers,
  ETAG,
  NOT_FOUND,
  PRECONDITION_FAILED,
  NOT_JSON,
  TOO_LARGE,
} from './answers';
import { EXAMPLE_PLANT } from '../example-plant';
import type { AnswerDescription } from './descriptions';
import { OPTIONAL_ONLY_IF_SET } from './plant-words';

/** The order of a change's checks. */
const ORDER =
  'Checks run in this order: scope (403), `id` and `If-Match` (400), content type (415), size (413), JSON syntax (400), fields (400), store (200/404/412/503). Nothing is written unless the answer is 200.';

/** How a change treats versions. */
const VERSIONS =
  "Each change raises the version by one (`ETag`), also when it repeats what is stored. With `If-Match`, it applies only while the plant is at a version named there: of concurrent changes sent with the same `If-Match`, one is 200 and the others 412, so no change is lost. Without it, the change applies to whatever is stored, atomically (never a partial write). The plant's `createdAt` is kept; `plantUpdated` subscribers are told.";

/** A change's description: what it does, what its body is, then what both changes share. */
export function changeDescription(what: string, body: string): string {
  return [what, '', body, '', VERSIONS, '', ORDER].join('\n');
}

/** The answers PUT and PATCH share, besides their 400. */
export function changeAnswers(): Record<number, AnswerDescription> {
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
