/**
 * How each local service refuses a request, in its own protocol's shape (so that the SDK raises
 * the error it raises against AWS): DynamoDB and KMS answer 400 with `AccessDeniedException`,
 * `UnrecognizedClientException` or `InvalidSignatureException`; SQS (JSON protocol, query
 * compatible) answers 403 with `AccessDenied`, `InvalidClientTokenId` or `SignatureDoesNotMatch`
 * in `x-amzn-query-error`, which the SDK names the error by.
 */
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { SignatureFault } from './sigv4';

/** The services the local account emulates. */
export type LocalService = 'dynamodb' | 'sqs' | 'kms';

/** Why a request is refused: a signature fault, or IAM's denial. */
export type Refusal = SignatureFault | 'denied';

interface ServiceError {
  readonly status: number;
  readonly type: string;
  readonly queryCode?: string;
}

const DYNAMODB: Record<Refusal, ServiceError> = {
  denied: { status: 400, type: 'com.amazon.coral.service#AccessDeniedException' },
  missing: { status: 400, type: 'com.amazon.coral.service#MissingAuthenticationTokenException' },
  'unknown-key': { status: 400, type: 'com.amazon.coral.service#UnrecognizedClientException' },
  mismatch: { status: 400, type: 'com.amazon.coral.service#InvalidSignatureException' },
  expired: { status: 400, type: 'com.amazon.coral.service#InvalidSignatureException' },
};

const KMS: Record<Refusal, ServiceError> = {
  denied: { status: 400, type: 'AccessDeniedException' },
  missing: { status: 400, type: 'MissingAuthenticationTokenException' },
  'unknown-key': { status: 400, type: 'UnrecognizedClientException' },
  mismatch: { status: 400, type: 'InvalidSignatureException' },
  expired: { status: 400, type: 'InvalidSignatureException' },
};

const SQS: Record<Refusal, ServiceError> = {
  denied: {
    status: 403,
    type: 'com.amazon.coral.service#AccessDeniedException',
    queryCode: 'AccessDenied',
  },
  missing: {
    status: 403,
    type: 'com.amazon.coral.service#MissingAuthenticationTokenException',
    queryCode: 'MissingAuthenticationToken',
  },
  'unknown-key': {
    status: 403,
    type: 'com.amazon.coral.service#InvalidClientTokenId',
    queryCode: 'InvalidClientTokenId',
  },
  mismatch: {
    status: 403,
    type: 'com.amazon.coral.service#SignatureDoesNotMatch',
    queryCode: 'SignatureDoesNotMatch',
  },
  expired: {
    status: 403,
    type: 'com.amazon.coral.service#SignatureDoesNotMatch',
    queryCode: 'SignatureDoesNotMatch',
  },
};

const ERRORS: Record<LocalService, Record<Refusal, ServiceError>> = {
  dynamodb: DYNAMODB,
  sqs: SQS,
  kms: KMS,
};

/** AWS's messages for a signature fault. */
const SIGNATURE_MESSAGES: Record<SignatureFault, string> = {
  missing: 'Request is missing Authentication Token',
  'unknown-key': 'The security token included in the request is invalid.',
  mismatch:
    'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.',
  expired: 'Signature expired: the request was signed more than 15 minutes ago or ahead.',
};

/** AWS's message for a signature fault. */
export function signatureMessage(fault: SignatureFault): string {
  return SIGNATURE_MESSAGES[fault];
}

/** IAM's message for a denial, as AWS words it. */
export function deniedMessage(
  principal: string,
  action: string,
  resource: string,
  why: 'no-identity-allow' | 'no-resource-allow' | 'explicit-deny',
): string {
  const reason =
    why === 'explicit-deny'
      ? 'with an explicit deny in a policy'
      : `because no ${why === 'no-identity-allow' ? 'identity' : 'resource'}-based policy allows the ${action} action`;
  return `User: ${principal} is not authorized to perform: ${action} on resource: ${resource} ${reason}`;
}

/** Answers `res` with `service`'s error for `refusal` (a denial's message from `deniedMessage`). */
export function refuse(
  res: ServerResponse,
  service: LocalService,
  refusal: Refusal,
  message: string = refusal === 'denied' ? '' : SIGNATURE_MESSAGES[refusal],
): void {
  const error = ERRORS[service][refusal];
  const body = JSON.stringify({ __type: error.type, message });
  if (res.headersSent || res.destroyed) return;
  res.writeHead(error.status, {
    'content-type': service === 'kms' ? 'application/x-amz-json-1.1' : 'application/x-amz-json-1.0',
    'content-length': Buffer.byteLength(body),
    'x-amzn-requestid': randomUUID(),
    ...(error.queryCode ? { 'x-amzn-query-error': `${error.queryCode};Sender` } : {}),
  });
  res.end(body);
}
