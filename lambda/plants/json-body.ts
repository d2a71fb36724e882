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
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The body, checked and parsed (ids exact, other numbers as their literals), then validated by `schema`: its output, or a 400. */
export function readJsonBody<TSchema extends v.GenericSchema>(
  event: APIGatewayProxyEventV2,
  schema: TSchema,
): v.InferOutput<TSchema> {
  checkContentType(header(event, 'content-type'));
  const result = v.safeParse(schema, parseBody(decodeBody(event)));
  if (!result.success) throw new BadRequest(describeIssues(result.issues));
  return result.output;
}

function checkContentType(contentType: string | undefined): void {
  const [mediaType = '', ...parameters] = (contentType ?? '').split(';');
  const charset = parameters
    .map((parameter) => parameter.trim().toLowerCase())
    .find((parameter) => parameter.startsWith('charset='));
  const charsetValue = charset?.slice('charset='.length).replace(/^"|"$/g, '');
  if (!JSON_MEDIA_TYPE.test(mediaType.trim().toLowerCase())) {
    throw new UnsupportedMediaType(
      contentType
        ? `content-type ${contentType} is not accepted; send application/json`
        : 'content-type is required; send application/json',
    );
  }
  if (charsetValue !== undefined && charsetValue !== 'utf-8' && charsetValue !== 'utf8') {
    throw new UnsupportedMediaType(`charset ${charsetValue} is not accepted; send UTF-8`);
  }
}

/** The body's text, after the size check and, for base64 bodies, strict UTF-8 decoding. */
function decodeBody(event: APIGatewayProxyEventV2): string {
  const body = event.body ?? '';
  if (!event.isBase64Encoded) {
    checkSize(Buffer.byteLength(body, 'utf8'));
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

function checkSize(bytes: number): void {
  if (bytes > MAX_BODY_BYTES) {
    throw new PayloadTooLarge(`body: must be at most ${MAX_BODY_BYTES} bytes; got ${bytes}`);
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
