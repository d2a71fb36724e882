/**
 * The `webhooks` section of the OpenAPI document (3.1): `newPlant`, the request the service
 * sends each subscriber for each stored plant, with its three Standard Webhooks headers.
 */
import { MAX_ATTEMPTS, RETRY_DELAYS_SECONDS } from '../../../lambda/shared/webhook/schedule';

const header = (name: string, description: string, pattern: string, required = true) => ({
  name,
  in: 'header',
  required,
  description,
  schema: { type: 'string', pattern },
});

/** `webhooks.newPlant`. */
export function webhooksSection(): Record<string, object> {
  const delays = RETRY_DELAYS_SECONDS.map((s) =>
    s < 60 ? `${s} s` : s < 3600 ? `${s / 60} min` : `${s / 3600} h`,
  );
  return {
    newPlant: {
      post: {
        operationId: 'newPlant',
        summary: 'A plant was stored',
        description: [
          'Sent to every subscriber (`npm run webhook -- add`) for each plant a create stored: a 200 that wrote an item. A retried create answered 200 without writing, a 409, any other error and a delete send nothing.',
          `Signed as Standard Webhooks 1.0 says: verify with any Standard Webhooks library and the subscriber's \`whsec_\` secret. Success is a 2xx within 10 s; anything else is retried after about ${delays.join(', ')} (with jitter), ${MAX_ATTEMPTS} attempts in all, then dead-lettered. Delivery is at least once and in no particular order: deduplicate by \`webhook-id\`.`,
        ].join('\n\n'),
        tags: ['webhooks'],
        security: [],
        parameters: [
          header(
            'webhook-id',
            'The same on every attempt of one plant to one subscriber, unique otherwise: the key to deduplicate by.',
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
            `Which attempt this is, from 1 to ${MAX_ATTEMPTS}. Informational: not signed, so never trusted for anything but logs.`,
            '^[1-9][0-9]*$',
            false,
          ),
        ],
        requestBody: {
          required: true,
          description:
            'The plant as stored: `id` with every digit (never through a float64), `name`, and `tag` only if set; nothing else.',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/NewPlant' } } },
        },
        responses: {
          '2XX': {
            description: 'Received. The body of the answer is ignored (at most 4 KB is read).',
          },
          default: {
            description: 'Anything else, a timeout (10 s) or a failed connection: retried.',
          },
        },
      },
    },
  };
}
