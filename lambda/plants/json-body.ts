/**
 * The JSON body of a request that carries one (POST, PUT, PATCH), checked in the contract's
 * order: content type (415), size (413), JSON (400). What the value must be is each
 * operation's schema.
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import * as v from 'valibot';
import { BadRequest, PayloadTooLarge, UnsupportedMediaType } from '../http/answers';
import { JsonSyntaxError, parseJson } from '../http/json';
import { header } from './request';
import { describeIssues } from './schemas';

/** The largest body accepted, in bytes: 256 KiB. */
export const MAX_BODY_BYTES = 262_144;

/** `application/json` or any `application/*+json` (`application/merge-patch+json` among them). */
const JSON_MEDIA_TYPE = /^application\/(?:[a-z0-9!#$&^_.+-]+\+)?json$/;
/** The media type of a JSON Merge Patch (RFC 7396), the one patch format PATCH takes. */
export const MERGE_PATCH = 'application/merge-patch+json';
/** Documents that describe a change rather than a plant: JSON Patch (RFC 6902) and merge patch. */
const PATCH_DOCUMENTS = ['application/json-patch+json', MERGE_PATCH];
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The media types (lower case, without parameters) a body may have, and what a 415 says. */
export interface BodyMediaTypes {
  readonly accepts: (mediaType: string) => boolean;
  /** What the 415's message tells the caller to send. */
  readonly send: string;
  /** Headers of the 415. */
  readonly headers?: Readonly<Record<string, string>>;
}

/** A new plant (POST): `application/json` or any `application/*+json`. */
export const JSON_BODY: BodyMediaTypes = {
  accepts: (type) => JSON_MEDIA_TYPE.test(type),
  send: 'application/json',
};

/** A whole plant (PUT): as POST, but not a patch document, which a replacement cannot be. */
export const PLANT_BODY: BodyMediaTypes = {
  accepts: (type) => JSON_BODY.accepts(type) && !PATCH_DOCUMENTS.includes(type),
  send: 'application/json',
};

/**
 * A JSON Merge Patch (PATCH): `application/merge-patch+json` or `application/json`; any other
 * (JSON Patch among them) is a 415 that says so in `Accept-Patch` (RFC 5789 section 2.2).
 */
export const MERGE_PATCH_BODY: BodyMediaTypes = {
  accepts: (type) => type === MERGE_PATCH || type === 'application/json',
  send: `${MERGE_PATCH} or application/json`,
  headers: { 'accept-patch': MERGE_PATCH },
};

/**
 * The body, checked (its media type one of `mediaTypes`) and parsed (ids exact, other numbers
 * as their literals), then validated by `schema`: its output, or a 4xx.
 */
export function readJsonBody<TSchema extends v.GenericSchema>(
  event: APIGatewayProxyEventV2,
  schema: TSchema,
  mediaTypes: BodyMediaTypes = JSON_BODY,
): v.InferOutput<TSchema> {
  checkContentType(header(event, 'content-type'), mediaTypes);
  const result = v.safeParse(schema, parseBody(decodeBody(event)));
  if (!result.success) throw new BadRequest(describeIssues(result.issues));
  return result.output;
}

function checkContentType(contentType: string | undefined, mediaTypes: BodyMediaTypes): void {
  const [mediaType = '', ...parameters] = (contentType ?? '').split(';');
  const charset = parameters
    .map((parameter) => parameter.trim().toLowerCase())
    .find((parameter) => parameter.startsWith('charset='));
  const charsetValue = charset?.slice('charset='.length).replace(/^"|"$/g, '');
  const { accepts, send, headers } = mediaTypes;
  if (!accepts(mediaType.trim().toLowerCase())) {
    throw new UnsupportedMediaType(
      contentType
        ? `content-type ${contentType} is not accepted; send ${send}`
        : `content-type is required; send ${send}`,
      headers,
    );
  }
  if (charsetValue !== undefined && charsetValue !== 'utf-8' && charsetValue !== 'utf8') {
    throw new UnsupportedMediaType(`charset ${charsetValue} is not accepted; send UTF-8`, headers);
  }
}

/** The body's text, after the size check and, for base64 bodies, strict UTF-8 decoding. */
function decodeBody(event: APIGatewayProxyEventV2): string {
  const body = event.body ?? '';
  if (!event.isBase64Encoded) {
    checkSize(Buffer.byteLength(body, 'utf8'), body);
    return body;
  }
  const bytes = Buffer.from(body, 'base64');
  checkSize(bytes.length);
  try {
    return UTF8.decode(bytes);
  } catch {
    throw new BadRequest('body: must be UTF-8');
  }
}

/** The body's size in UTF-8 over the limit: 413 (`text` when the gateway passed on text). */
function checkSize(bytes: number, text?: string): void {
  if (bytes > MAX_BODY_BYTES) {
    // The gateway passes a text body on with U+FFFD (3 bytes) in place of each sequence that is
    // not UTF-8: a client that sent fewer bytes is told where the rest may have come from.
    const replaced = text?.includes('\uFFFD')
      ? ', counting each U+FFFD (3 bytes), which the gateway puts in place of each sequence that is not UTF-8'
      : '';
    throw new PayloadTooLarge(
      `body: must be at most ${MAX_BODY_BYTES} bytes; got ${bytes}${replaced}`,
    );
  }
}

function parseBody(text: string): unknown {
  try {
    return parseJson(text, { literals: true });
  } catch (error) {
    if (error instanceof JsonSyntaxError) throw new BadRequest(error.message);
    throw error;
  }
}
