/**
 * The headers with which a hand-made request to the local engine's port is signed (SigV4, by the
 * SDK's own signer), as an SDK client signs its requests: the engine refuses unsigned ones.
 */
import { SignatureV4 } from '@smithy/signature-v4';
import type { Credentials } from '../../lib/local/iam/identities';
import { Sha256 } from '../../lambda/aws/sdk-client';

/** `headers` (a `host` of their own too) plus the signature of a POST of `body` to `endpoint`. */
export async function signedHeaders(
  endpoint: string,
  service: 'dynamodb' | 'sqs' | 'kms',
  headers: Record<string, string>,
  body: string,
  credentials: Credentials,
): Promise<Record<string, string>> {
  const url = new URL(endpoint);
  const signer = new SignatureV4({ credentials, region: 'local', service, sha256: Sha256 });
  const signed = await signer.sign({
    method: 'POST',
    protocol: url.protocol,
    hostname: url.hostname,
    port: Number(url.port),
    path: '/',
    headers: { host: url.host, ...headers },
    body,
  });
  return signed.headers;
}
