/**
 * Signature Version 4, checked as AWS checks it: the request is signed again with the secret of
 * the access key it names (by the SDK's own signer, `@smithy/signature-v4`, over the headers the
 * caller signed and the body it sent) and the two signatures must be equal. An access key nobody
 * issued, a wrong secret, a wrong session token or a date more than 15 minutes off is refused.
 */
import { SignatureV4 } from '@smithy/signature-v4';
import { timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { Sha256 } from '../../../lambda/aws/sdk-client';

/** What a signature is checked with: the issued secret (and session token) of an access key. */
export interface SigningSecret {
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
}

/** A request as received: its method, path and query, headers and the whole body. */
export interface ReceivedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

/** Why a signature is refused; each service answers it with its own error. */
export type SignatureFault = 'missing' | 'unknown-key' | 'mismatch' | 'expired';

/** The outcome: the access key that signed, or why not. */
export type SignatureCheck =
  | { readonly ok: true; readonly accessKeyId: string }
  | { readonly ok: false; readonly fault: SignatureFault; readonly detail: string };

/** AWS refuses a request signed more than this far from its own clock. */
const MAX_SKEW_MS = 15 * 60 * 1000;

const AUTHORIZATION =
  /^AWS4-HMAC-SHA256 Credential=([^/\s,]+)\/(\d{8})\/([^/\s,]+)\/([^/\s,]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/;

/** Checks the request's SigV4 `Authorization` header against `secretOf` its access key. */
export async function checkSignature(
  request: ReceivedRequest,
  secretOf: (accessKeyId: string) => SigningSecret | undefined,
  now = Date.now(),
): Promise<SignatureCheck> {
  const header = request.headers.authorization;
  const parts = header === undefined ? null : AUTHORIZATION.exec(header);
  const date = request.headers['x-amz-date'];
  if (!parts || typeof date !== 'string') {
    return { ok: false, fault: 'missing', detail: 'no SigV4 Authorization and X-Amz-Date' };
  }
  const [, accessKeyId, , region, service, signedList, signature] = parts as unknown as string[];
  const secret = secretOf(accessKeyId!);
  if (!secret) return { ok: false, fault: 'unknown-key', detail: `access key ${accessKeyId}` };
  const signingDate = parseAmzDate(date);
  if (signingDate === undefined || Math.abs(now - signingDate.getTime()) > MAX_SKEW_MS) {
    return { ok: false, fault: 'expired', detail: `signed at ${date}` };
  }
  const signedHeaders = signedList!.split(';');
  if (!signedHeaders.includes('host')) {
    return { ok: false, fault: 'mismatch', detail: 'the host header is not signed' };
  }
  if (secret.sessionToken !== undefined) {
    const token = request.headers['x-amz-security-token'];
    if (token !== secret.sessionToken || !signedHeaders.includes('x-amz-security-token')) {
      return { ok: false, fault: 'unknown-key', detail: `session token of ${accessKeyId}` };
    }
  }
  const headers: Record<string, string> = {};
  for (const name of signedHeaders) {
    const value = request.headers[name];
    if (value === undefined) {
      return { ok: false, fault: 'mismatch', detail: `signed header ${name} is absent` };
    }
    headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  const [path = '/', query = ''] = request.url.split('?', 2);
  const signer = new SignatureV4({
    credentials: { accessKeyId: accessKeyId!, ...secret },
    region: region!,
    service: service!,
    // The functions' own SHA-256: the signer hashes here exactly as the caller's did.
    sha256: Sha256,
    // Only what the caller signed: a payload hash header is signed when it sent one.
    applyChecksum: false,
  });
  const signed = await signer.sign(
    {
      method: request.method,
      protocol: 'http:',
      hostname: headers.host!.replace(/:\d+$/, ''),
      path,
      query: Object.fromEntries(new URLSearchParams(query)),
      headers,
      body: request.body,
    },
    {
      signingDate,
      signingRegion: region,
      signingService: service,
      signableHeaders: new Set(signedHeaders),
    },
  );
  const expected = /Signature=([0-9a-f]{64})/.exec(String(signed.headers.authorization))?.[1];
  const same =
    expected !== undefined &&
    timingSafeEqual(Buffer.from(expected, 'hex'), Buffer.from(signature!, 'hex'));
  return same
    ? { ok: true, accessKeyId: accessKeyId! }
    : { ok: false, fault: 'mismatch', detail: `signature of ${accessKeyId}` };
}

/** `20240617T155239Z` as a date, or `undefined` when it is not one. */
function parseAmzDate(text: string): Date | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s] = m.map(Number) as number[];
  return new Date(Date.UTC(y!, mo! - 1, d!, h!, mi!, s!));
}
