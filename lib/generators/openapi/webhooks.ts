/**
 * The `webhooks` section of the OpenAPI document (3.1): `newPlant`, `plantUpdated` and
 * `plantDeleted`, the requests the service sends each subscriber that chose them, for each
 * create, change and delete, with their Standard Webhooks headers and what each answer does.
 */
import {
  NewPlantEvent,
  PlantDeletedEvent,
  PlantUpdatedEvent,
} from '../../../lambda/webhook/event-bodies';
import {
  HORIZON_SECONDS,
  MAX_ATTEMPTS,
  RETRY_DELAYS_SECONDS,
} from '../../../lambda/webhook/schedule';
import { STORED_MEMBERS } from '../../../lambda/plants/openapi/plant-words';
import { durationText } from '../../definitions/webhooks';

/** The webhooks' bodies named under `components/schemas`, beside the operations' bodies. */
export const WEBHOOK_BODY_SCHEMAS = { NewPlantEvent, PlantUpdatedEvent, PlantDeletedEvent };

/** How a receiver orders the events of one plant id, said once for each webhook. */
const ORDERING =
  'A subscriber that chose more than newPlant (`--events`) receives typed bodies that carry `type`, `createdAt` and `version`. Delivery is in no particular order; a receiver orders the events of one id by (`createdAt`, `version`) — `createdAt` names the incarnation (an id deleted and created again has a later one; it compares as text), `version` orders within it, a plantDeleted is the last version of its incarnation — keeps the greatest pair it has seen and drops an event whose pair is smaller or equal: it is stale (docs/guides/receiving-webhooks.md shows such a receiver).';

const header = (name: string, description: string, pattern: string, required = true) => ({
  name,
  in: 'header',
  required,
  description,
  schema: { type: 'string', pattern },
});

/** The `webhooks` tag that `newPlant` carries, declared beside `plants`. */
export const WEBHOOKS_TAG_DESCRIPTION =
  'What the service sends to subscribers (`npm run webhook -- add --url U`), and what it does with their answers';

/** `Retry-After` as a receiver may send it: seconds, or an HTTP date. */
const RETRY_AFTER = {
  'Retry-After': {
    description:
      "When to send again: delay-seconds (`120`) or an HTTP date (`Wed, 25 Nov 2026 08:00:00 GMT`). Honoured up to 12 h (SQS's longest visibility timeout), whatever the schedule's next step; a longer wait is cut to 12 h.",
    schema: {
      type: 'string',
      pattern:
        '^([0-9]+|[A-Z][a-z]{2}, [0-9]{2} [A-Z][a-z]{2} [0-9]{4} [0-9]{2}:[0-9]{2}:[0-9]{2} GMT)$',
    },
  },
};

/** The request's headers: the same for every event. */
function parameters(): object[] {
  return [
    header(
      'webhook-id',
      'The same on every attempt of one event (a plant created, or one version of it changed or deleted) to one subscriber, and when it is replayed; unique otherwise: the key to deduplicate by.',
      '^msg_[A-Za-z0-9_-]+$',
    ),
    header(
      'webhook-timestamp',
      'Unix seconds of this attempt; part of the signed content.',
      '^[0-9]+$',
    ),
    header(
      'webhook-signature',
      '`v1,` and the base64 of HMAC-SHA256(key, "<webhook-id>.<webhook-timestamp>.<body>"), the key being the bytes after `whsec_` in the secret.',
      '^v1,[A-Za-z0-9+/]+=*( v1,[A-Za-z0-9+/]+=*)*$',
    ),
    header(
      'webhook-attempt',
      `Which attempt this is, from 1 (to ${MAX_ATTEMPTS} on the schedule; more when short \`Retry-After\`s leave time before the horizon). Informational: not signed, so never trusted for anything but logs.`,
      '^[1-9][0-9]*$',
      false,
    ),
  ];
}

/** What the receiver may answer, and what each answer does (docs/guides/receiving-webhooks.md): the same for every event. */
function responses(): object {
  return {
    '2XX': {
      description:
        "Received: this delivery is done, and the subscriber's run of failures ends. The body of the answer is ignored (at most 4 KB is read).",
    },
    '410': {
      description:
        'Gone: the subscriber is disabled at once and receives nothing more; this delivery is not retried but kept: `npm run webhook -- enable <id>` turns the subscriber back on and delivers it, with every plant stored while it was disabled, each with the `webhook-id` it would have had.',
    },
    '429': {
      description:
        "Too many requests: retried after `Retry-After` (or the schedule's next step without one), and the subscriber's deliveries slow down (its rate is halved, at least 1 a minute, and comes back as 2xx answers arrive). Counts as a failed attempt.",
      headers: RETRY_AFTER,
    },
    '503': {
      description:
        "Unavailable: retried after `Retry-After` (or the schedule's next step without one). Counts as a failed attempt.",
      headers: RETRY_AFTER,
    },
    default: {
      description:
        'Anything else (502 and 504 also slow the subscriber down, as a timeout does), no answer within 10 s, or a failed connection: retried on the schedule, then dead-lettered. A subscriber whose every attempt fails for 5 days is disabled as a 410 disables it.',
    },
  };
}

/** One webhook: its operation, summary, description paragraphs and body. */
function webhook(
  operationId: string,
  summary: string,
  description: readonly string[],
  requestBody: object,
): object {
  return {
    post: {
      operationId,
      summary,
      description: [...description, signedAndRetried(), ORDERING].join('\n\n'),
      tags: ['webhooks'],
      security: [],
      parameters: parameters(),
      requestBody: { required: true, ...requestBody },
      responses: responses(),
    },
  };
}

/** The signature, the schedule and the dead letters, said once for every event. */
function signedAndRetried(): string {
  const delays = RETRY_DELAYS_SECONDS.map(durationText);
  return `Signed as Standard Webhooks 1.0 says: verify with any Standard Webhooks library and the subscriber's \`whsec_\` secret. Success is a 2xx within 10 s; anything else is retried after ${delays.join(', ')} (each up to 20 % longer, never shorter), ${MAX_ATTEMPTS} attempts over at least ${durationText(HORIZON_SECONDS)}, then dead-lettered (never sooner). Delivery is at least once and in no particular order: deduplicate by \`webhook-id\`.`;
}

const schema = (name: keyof typeof WEBHOOK_BODY_SCHEMAS | 'NewPlant') => ({
  $ref: `#/components/schemas/${name}`,
});

/** `webhooks`: newPlant, plantUpdated, plantDeleted. */
export function webhooksSection(): Record<string, object> {
  return {
    newPlant: webhook(
      'newPlant',
      'A plant was stored',
      [
        'Sent to every subscriber that chose newPlant (every subscriber unless `--events` says otherwise) for each plant a create stored: a 200 that wrote an item, also over an id whose delete was interrupted. A retried create answered 200 without writing, a 409 and any other error send nothing.',
      ],
      {
        description: `The plant as stored: \`id\` with every digit (never through a float64), ${STORED_MEMBERS}; nothing else. A subscriber that chose more events than newPlant receives NewPlantEvent instead (\`#/components/schemas/NewPlantEvent\`): the same plant with \`type\`, \`createdAt\` and \`version\`.`,
        content: { 'application/json': { schema: schema('NewPlant') } },
      },
    ),
    plantUpdated: webhook(
      'plantUpdated',
      'A plant was changed',
      [
        'Sent to every subscriber that chose plantUpdated (`npm run webhook -- add|update --events plantUpdated,…`) for each change a PUT or PATCH stored: the whole plant after it, at its new version. A 404, 412 or any other error sends nothing.',
      ],
      {
        description: `The plant after the change: \`id\` with every digit, ${STORED_MEMBERS}, \`type\`, \`createdAt\` and its new \`version\`.`,
        content: { 'application/json': { schema: schema('PlantUpdatedEvent') } },
      },
    ),
    plantDeleted: webhook(
      'plantDeleted',
      'A plant was deleted',
      [
        'Sent to every subscriber that chose plantDeleted for each plant a DELETE deleted (a 204 that found it): its id, the `createdAt` of the plant deleted and its last version. A 404, 412 or any other error sends nothing.',
      ],
      {
        description: 'The id deleted, with every digit; `type`, `createdAt` and `version`.',
        content: { 'application/json': { schema: schema('PlantDeletedEvent') } },
      },
    ),
  };
}
