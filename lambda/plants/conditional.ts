/**
 * Conditional requests on one plant (RFC 9110 section 13): the `If-Match` and `If-None-Match`
 * that a read, a change and a delete honour, the `ETag` of an answer, and what a write that its
 * condition refused answers.
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { jsonResponse, NotFound, PreconditionFailed } from '../http/answers';
import type { Refusal, Versioned } from './table';
import type { Preconditions } from './write-condition';
import { header } from './request';
import { etagOf, names, readValidators, type Validators } from './versions';

/** The versions a request's `If-Match` names (strong comparison), or `undefined` without one. */
export function readIfMatch(event: APIGatewayProxyEventV2): Validators | undefined {
  return readValidators('If-Match', header(event, 'if-match'), false);
}

/** The versions a request's `If-None-Match` names (weak comparison), or `undefined` without one. */
export function readIfNoneMatch(event: APIGatewayProxyEventV2): Validators | undefined {
  return readValidators('If-None-Match', header(event, 'if-none-match'), true);
}

/** Both preconditions of a request (RFC 9110 section 13.1.1 and 13.1.2). */
export function readPreconditions(event: APIGatewayProxyEventV2): Preconditions {
  return { ifMatch: readIfMatch(event), ifNoneMatch: readIfNoneMatch(event) };
}

/**
 * The 412 of a read whose `If-Match` names none of the plant's versions (RFC 9110 section
 * 13.1.1: checked before `If-None-Match`), thrown; a plant it names passes.
 */
export function requireMatch(id: bigint, ifMatch: Validators | undefined, version: number): void {
  if (ifMatch && !names(ifMatch, version)) throw preconditionFailed(id, version);
}

function preconditionFailed(id: bigint, version: number): PreconditionFailed {
  return new PreconditionFailed(`plant ${id} is at version ${version}`, etagOf(version));
}

/**
 * What a conditional write wrote, or its refusal as the error that answers it: 404 when there
 * was no plant (preconditions count only for a plant that is there, RFC 9110 section 13.2.2),
 * 412 with the stored version when `If-Match` named another, or `If-None-Match` this one.
 */
export function written<T extends { readonly version: number }>(
  id: bigint,
  result: T | Refusal,
): T {
  if (!('refused' in result)) return result;
  if (result.refused === 'missing') throw new NotFound(`no plant with id ${id}`);
  throw preconditionFailed(id, result.version);
}

/** A 200 with the plant and its version as the `ETag`. */
export function plantResponse({ plant, version }: Versioned): APIGatewayProxyStructuredResultV2 {
  return jsonResponse(200, plant, { etag: etagOf(version) });
}
