/**
 * What the OpenAPI document says of both changes of a plant, PUT and PATCH /plants/{id}: both
 * answer the plant (or, to a write-only token, only its version) and its new version, honour
 * `If-Match` and `If-None-Match`, and never create a plant.
 */
import { CHANGE_NEED } from '../../tokens/principal';
import { commonAnswers, ETAG, NOT_FOUND, PRECONDITION_FAILED, TOO_LARGE } from './answers';
import { EXAMPLE_PLANT } from '../example-plant';
import type { AnswerDescription } from './descriptions';
import { OPTIONAL_ONLY_IF_SET } from './plant-words';

/** The order of a change's checks. */
const ORDER =
  'Checks run in this order: scope (403), `id`, `If-Match` and `If-None-Match` (400), content type (415), size (413), JSON syntax (400), fields (400), store (200/204/404/412/503). Nothing is written unless the answer is 200 or 204 (and not then when the change changes nothing), or a 503 for a write the store did not confirm (see 503).';

/** How a change treats versions. */
const VERSIONS =
  "Each change that changes something raises the version by one (`ETag`); one that changes nothing (`{}`, or the members stored) writes nothing: the version stays and no event is sent. With `If-Match`, it applies only while the plant is at a version named there: of concurrent changes sent with the same `If-Match`, one succeeds and the others are 412, so no change is lost. With `If-None-Match`, only while it is at none named there (`*`: never, since a change needs a plant). Without either, the change applies to whatever is stored, atomically (never a partial write). The plant's `createdAt` is kept; `plantUpdated` subscribers are told.";

/** Who may change a plant. */
const WHO_MAY = `Needs the scope \`${CHANGE_NEED.scope}\`, of a token made with ${CHANGE_NEED.release} or later: a token made before keeps what its scopes let it do then (create, not change; 403).`;

/** Who sees the plant a change answers. */
const WHO_SEES =
  'A token that also has `plants:read` is answered the plant (200); a token with `plants:write` alone gets 204 with the new `ETag` and no body: a change never shows a stored member to a token that may not read it.';

/** A change's description: what it does, what its body is, then what both changes share. */
export function changeDescription(what: string, body: string): string {
  return [what, '', body, '', VERSIONS, '', WHO_MAY, '', WHO_SEES, '', ORDER].join('\n');
}

/** The answers PUT and PATCH share, besides their 400; `notAccepted` is the 415. */
export function changeAnswers(notAccepted: AnswerDescription): Record<number, AnswerDescription> {
  return {
    200: {
      description: `The plant after the change (or as stored, when the change changed nothing), to a token with \`plants:read\`: \`id\` with every digit, ${OPTIONAL_ONLY_IF_SET}. \`ETag\` is its version.`,
      body: 'StoredPlant',
      example: EXAMPLE_PLANT,
      headers: { ETag: ETAG },
    },
    204: {
      description:
        'The change was made (or changed nothing), for a token with `plants:write` but not `plants:read`: no body, never a stored member. `ETag` is the version.',
      headers: { ETag: ETAG },
    },
    ...commonAnswers(CHANGE_NEED, true),
    404: {
      description:
        'No plant has this id: `no plant with id N`. A change never creates a plant (POST does). Preconditions count only for a plant that is there, so this comes before 412.',
      body: 'Error',
      example: NOT_FOUND,
    },
    412: PRECONDITION_FAILED,
    413: TOO_LARGE,
    415: notAccepted,
  };
}
