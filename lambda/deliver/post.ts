/**
 * One delivery attempt over the network: a POST that connects only to the addresses the
 * resolver checked (`resolver.ts`), as checked (TLS still verifies the name and `Host` is the URL's).
 * No redirect is followed (Node's client follows none), the whole attempt has 10 s, and at most
 * 4 KB of the answer is read, then dropped: it is never logged.
 */
import type { LookupAddress } from 'node:dns';
import type { IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { AddressPolicy } from '../webhook/address-policy';
import { BatchResolver } from './resolver';
import { DELIVERY_TIMEOUT_SECONDS } from '../webhook/schedule';

// Not `import … from 'node:http'`: its ES module facade reads every export, and the lazy
// `WebSocket` among them loads all of undici at cold start (`request` is the same function).
const { request: httpRequest } = process.getBuiltinModule('node:http');

/** At most this much of a receiver's answer is read. */
const MAX_ANSWER_BYTES = 4_096;

/**
 * What an attempt came to: a status (with the receiver's `Retry-After`, if it sent one), or why
 * there was none (never the receiver's body).
 */
export type Attempt =
  { readonly status: number; readonly retryAfter?: string } | { readonly failure: string };

/** A 2xx answer. */
export function succeeded(attempt: Attempt): boolean {
  return 'status' in attempt && attempt.status >= 200 && attempt.status < 300;
}

/** A `lookup` for the HTTP client that answers the addresses already resolved and checked. */
function fixedLookup(addresses: readonly string[]): LookupFunction {
  const all: LookupAddress[] = addresses.map((address) => ({ address, family: isIP(address) }));
  return (_hostname, options, callback) => {
    const wanted = options.family ? all.filter((a) => a.family === options.family) : all;
    const answer = wanted.length > 0 ? wanted : all;
    if (options.all)
      return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, answer);
    callback(null, answer[0]!.address, answer[0]!.family);
  };
}

/** How one attempt reaches its receiver. */
export interface PostOptions {
  /** Resolves and checks the host (shared by a batch's deliveries). @default - one of its own */
  readonly resolver?: BatchResolver;
  /** @default DELIVERY_TIMEOUT_SECONDS × 1000 */
  readonly timeoutMs?: number;
}

/** POSTs `body` to `url` with `headers`; never throws. */
export async function post(
  url: URL,
  headers: Record<string, string>,
  body: string,
  policy: AddressPolicy,
  options: PostOptions = {},
): Promise<Attempt> {
  const timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_SECONDS * 1000;
  const destination = await (options.resolver ?? new BatchResolver(policy)).destination(url);
  if ('refused' in destination) return { failure: destination.refused };
  if ('unresolved' in destination) return { failure: destination.unresolved };
  return new Promise<Attempt>((resolve) => {
    let settled = false;
    const settle = (attempt: Attempt) => {
      if (settled) return;
      settled = true;
      resolve(attempt);
    };
    const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        lookup: fixedLookup(destination.addresses),
        agent: false,
      },
      (response: IncomingMessage) => {
        const retryAfter = response.headers['retry-after'];
        settle({ status: response.statusCode ?? 0, ...(retryAfter ? { retryAfter } : {}) });
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read >= MAX_ANSWER_BYTES) response.destroy();
        });
        response.on('end', () => request.destroy());
        response.on('error', () => undefined);
      },
    );
    const timer = setTimeout(() => {
      settle({ failure: `no answer within ${timeoutMs / 1000} s` });
      request.destroy();
    }, timeoutMs);
    request.on('close', () => clearTimeout(timer));
    request.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      settle({ failure: error.message || error.code || 'connection failed' });
    });
    request.end(body);
  });
}
