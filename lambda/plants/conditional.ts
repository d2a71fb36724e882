/**
 * Conditional requests on one plant (RFC 9110 section 13): the `If-Match` a change or a delete
 * honours, the `If-None-Match` a read honours, the `ETag` of an answer, and what a write that
 * its condition refused answers.
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { jsonResponse, NotFound, PreconditionFailed } from '../http/answers';
import type { Refusal, Versioned } from './table';
import { header } from './request';
import { etagOf, readValidators, type Validators } from './versions';

/** The versions a request's `If-Match` names (strong comparison), or `undefined` without one. */
export function readIfMatch(event: APIGatewayProxyEventV2): Validators | undefined {
  return readValidators('If-Match', header(event, 'if-match'), false);
}

/** The versions a request's `If-None-Match` names (weak comparison), or `undefined` without one. */
export function readIfNoneMatch(event: APIGatewayProxyEventV2): Validators | undefined {
  return readValidators('If-None-Match', header(event, 'if-none-match'), true);
}

/**
 * What a conditional write wrote, or its refusal as the error that answers it: 404 when there
 * was no plant (preconditions count only for a plant that is there, RFC 9110 section 13.2.2),
 * 412 with the stored version when `If-Match` named another.
 */
export function written(id: bigint, result: Versioned | Refusal): Versioned {
  if (!('refused' in result)) return result;
  if (result.refused === 'missing') throw new NotFound(`no plant with id ${id}`);
  throw new PreconditionFailed(
    `plant ${id} is at version ${result.version}`,
    etagOf(result.version),
  );
}

/** A 200 with the plant and its version as the `ETag`. */
export function plantResponse({ plant, version }: Versioned): APIGatewayProxyStructuredResultV2 {
  return jsonResponse(200, plant, { etag: etagOf(version) });
}
