/**
 * What the OpenAPI document says about each route of `lib/api.ts`: its summary, parameters,
 * request body and the answers its function gives. The gateway's own answers are added to every
 * route by `document.ts`. Describing a new route is one entry in `OPERATIONS` (and its body
 * schemas in `BODY_SCHEMAS`); generation fails for a route without one.
 */
import * as v from 'valibot';
import { MAX_BODY_BYTES } from '../../lambda/create-plant/request';
import { RETRY_AFTER_SECONDS } from '../../lambda/shared/http';
import { PLANTS_WRITE } from '../../lambda/shared/principal';
import { ErrorBody, GatewayMessage, NewPlant, Plant } from '../../lambda/shared/schemas';
import type { RouteDefinition } from '../api';

/** The bodies the document names, by their name under `components/schemas`. */
export const BODY_SCHEMAS = { NewPlant, Plant, Error: ErrorBody, GatewayMessage } as const;
/** A body's name in `BODY_SCHEMAS`. */
export type BodyName = keyof typeof BODY_SCHEMAS;

/** A response header. */
export interface HeaderDescription {
  readonly description: string;
  readonly schema: v.GenericSchema;
}

/** One answer of a function: when it is given and its body (none for a 204). */
export interface AnswerDescription {
  readonly description: string;
  readonly body?: BodyName;
  readonly headers?: Readonly<Record<string, HeaderDescription>>;
}

/** A path or query parameter. */
export interface ParameterDescription {
  readonly name: string;
  readonly in: 'path' | 'query';
  readonly description: string;
  readonly required: boolean;
  readonly schema: v.GenericSchema;
}

/** Everything the document says about one route beyond `lib/api.ts`. */
export interface OperationDescription {
  readonly operationId: string;
  readonly summary: string;
  readonly description: string;
  readonly parameters?: readonly ParameterDescription[];
  readonly requestBody?: { readonly description: string; readonly body: BodyName };
  /** The function's answers by status. */
  readonly answers: Readonly<Record<number, AnswerDescription>>;
}

/** A route's key: `POST /plants`. */
export type RouteKey = `${RouteDefinition['method']} ${string}`;

/** `Retry-After` on the function's 503. */
const RETRY_AFTER: HeaderDescription = {
  description: `Seconds to wait before retrying (${RETRY_AFTER_SECONDS}). Set on the function's 503 (Error body); the gateway's own 503 has none.`,
  schema: v.pipe(v.number(), v.integer(), v.minValue(0)),
};

/** The answers every function gives when a scope is missing, on a bug, and when the store is down. */
function commonAnswers(scope: string): Record<number, AnswerDescription> {
  return {
    403: {
      description: `The token is valid but lacks the scope \`${scope}\`; the message names it.`,
      body: 'Error',
    },
    500: {
      description:
        'A bug in the function. The message says nothing of internals; the service log has them with the request id (`apigw-requestid`).',
      body: 'Error',
    },
    503: {
      description:
        'The store is throttled or unreachable after retries. Nothing was written; retry after `Retry-After` seconds.',
      body: 'Error',
      headers: { 'Retry-After': RETRY_AFTER },
    },
  };
}

/** Every route's description, by `METHOD /path` as in `lib/api.ts`. */
export const OPERATIONS: Readonly<Record<RouteKey, OperationDescription>> = {
  'POST /plants': {
    operationId: 'createPlant',
    summary: 'Create a plant',
    description: [
      'Creates a new plant in the store. Needs the scope `plants:write`.',
      '',
      `Send \`Content-Type: application/json\` (or any \`application/*+json\`; parameters allowed, a charset other than utf-8 is 415) and one JSON object of at most ${MAX_BODY_BYTES} bytes. \`id\` is an integer from -9223372036854775808 to 9223372036854775807 in any JSON spelling of an integer (\`5\`, \`5.0\`, \`5e0\`), kept exactly: never through a float64. \`tag\`, when present, is a string (\`null\` is not). Other members are ignored; a member that appears twice is a 400.`,
      '',
      'Checks run in this order: scope (403), content type (415), size (413), JSON syntax (400), fields (400), store (200/409/503). Nothing is written unless the answer is 200.',
      '',
      'A safe retry: sending the same id with the same name and tag again answers 200 and writes nothing.',
    ].join('\n'),
    requestBody: { description: 'The plant to create.', body: 'NewPlant' },
    answers: {
      200: {
        description:
          'plant response: the plant was created, or the same id was already stored with the same name and tag (nothing written). The body is the Plant: no id; `tag` only if the plant has one.',
        body: 'Plant',
      },
      400: {
        description:
          'unexpected error: the body is not JSON, not an object, repeats a member, or breaks a field rule. The message names every offending field and its rule, e.g. `id: required; name: must be a string`.',
        body: 'Error',
      },
      ...commonAnswers(PLANTS_WRITE),
      409: {
        description:
          'The id is already taken by a plant with another name or tag. Do not retry: choose another id.',
        body: 'Error',
      },
      413: {
        description: `The body is larger than ${MAX_BODY_BYTES} bytes (256 KiB).`,
        body: 'Error',
      },
      415: {
        description: 'The content type is not JSON (`application/json` or `application/*+json`).',
        body: 'Error',
      },
    },
  },
};
