/**
 * One delivery attempt over the network: a POST that connects only to an address the policy
 * allows, checked on the address the name resolves to now (DNS can change after a subscriber
 * is added) and connected to as checked (TLS still verifies the name and `Host` is the URL's).
 * No redirect is followed (Node's client follows none), the whole attempt has 10 s, and at most
 * 4 KB of the answer is read, then dropped: it is never logged.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { DELIVERY_TIMEOUT_SECONDS } from './schedule';
import { addressRefusal, urlRefusal, type AddressPolicy } from './address-policy';

/** At most this much of a receiver's answer is read. */
const MAX_ANSWER_BYTES = 4_096;

/** What an attempt came to: a status, or why there was none (never the receiver's body). */
export type Attempt = { readonly status: number } | { readonly failure: string };

/** A 2xx answer. */
export function succeeded(attempt: Attempt): boolean {
  return 'status' in attempt && attempt.status >= 200 && attempt.status < 300;
}

/** A `lookup` for the HTTP client that refuses a name when any of its addresses is refused. */
function checkedLookup(policy: AddressPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(
      hostname,
      { all: true, family: options.family },
      (error, addresses: LookupAddress[]) => {
        if (error) return callback(error, '', 0);
        const refused = addresses.map((a) => addressRefusal(a.address, policy)).find(Boolean);
        if (refused || addresses.length === 0) {
          const why = refused ?? 'no address';
          return callback(
            Object.assign(new Error(`${hostname}: ${why}`), { code: 'EREFUSED_ADDRESS' }),
            '',
            0,
          );
        }
        if (options.all)
          return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
        callback(null, addresses[0]!.address, addresses[0]!.family);
      },
    );
  };
}

/** POSTs `body` to `url` with `headers`; never throws. */
export function post(
  url: URL,
  headers: Record<string, string>,
  body: string,
  policy: AddressPolicy,
  timeoutMs = DELIVERY_TIMEOUT_SECONDS * 1000,
): Promise<Attempt> {
  const refusedUrl = urlRefusal(url, policy);
  if (refusedUrl) return Promise.resolve({ failure: refusedUrl });
  const literal = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(literal)) {
    const refused = addressRefusal(literal, policy);
    if (refused) return Promise.resolve({ failure: refused });
  }
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
        lookup: checkedLookup(policy),
        agent: false,
      },
      (response: IncomingMessage) => {
        settle({ status: response.statusCode ?? 0 });
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
