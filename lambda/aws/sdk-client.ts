/**
 * What every SDK client of the functions is built with (`SDK_CLIENT_OPTIONS`): a logger of ours
 * and a SHA-256 of ours. Both change what a call costs, never what it sends.
 */
import {
  createHash,
  createHmac,
  createSecretKey,
  type Hash,
  type Hmac,
  type KeyObject,
} from 'node:crypto';
import type { Checksum, Logger, SourceData } from '@smithy/types';

/**
 * The SDK's default logger, `NoOpLogger`, is told by its class's name: for it the SDK writes its
 * own warnings (a socket pool at capacity, an over-long app id, a response it cannot read) with
 * `console.warn`. The bundles are minified without `keepNames`, so that class has another name
 * and the SDK would give those warnings to it, which drops them. This logger says them as the SDK
 * did, and drops the rest as the default does: `error` is a failure the handler logs itself.
 *
 * It has no `info`: the SDK calls it after every command, as `logger.info?.(record)`, with a copy
 * of the input and the output filtered of sensitive fields, which it builds only when `info` is
 * there. The default logger has one, so every call builds that copy for nothing.
 */
export const SDK_LOGGER: Omit<Logger, 'info'> = {
  trace: () => undefined,
  debug: () => undefined,
  warn: (...content: unknown[]) => console.warn(...content),
  error: () => undefined,
};

/**
 * An HMAC's key as Node takes it fastest: a string as it is (UTF-8, as the SDK's own class passes
 * it on), bytes as a `KeyObject`. Given bytes, Node 24's `createHmac` first tries them as a
 * `KeyObject`, and throws and catches a `TypeError` (a stack trace captured) when they are not:
 * several times what `createSecretKey` and an HMAC on its `KeyObject` cost.
 */
function hmacKey(secret: SourceData): KeyObject | string {
  if (typeof secret === 'string') return secret;
  return createSecretKey(
    ArrayBuffer.isView(secret)
      ? Buffer.from(secret.buffer, secret.byteOffset, secret.byteLength)
      : Buffer.from(secret),
  );
}

/**
 * The SDK's SHA-256 for Node (`Sha256` of `@smithy/core/checksum`), but for how an HMAC gets its
 * key (`hmacKey`): SigV4's signature is an HMAC keyed by bytes, on every call of every function.
 * The same digests and errors otherwise: the test checks them against the SDK's class. Also the
 * local runtime's, to check the signatures it receives.
 */
export class Sha256 implements Checksum {
  readonly digestLength = 32;
  private readonly key: KeyObject | string | undefined;
  private hash: Hash | Hmac;
  private finished = false;

  constructor(secret?: SourceData) {
    // An empty string is no key, as in the SDK's class; empty bytes are a key.
    this.key = secret ? hmacKey(secret) : undefined;
    this.hash = this.create();
  }

  update(data: Uint8Array): void {
    if (this.finished) throw new Error('Attempted to update an already finished hash.');
    this.hash.update(data);
  }

  async digest(): Promise<Uint8Array> {
    let digest: Buffer;
    if (this.key !== undefined) {
      this.finished = true;
      digest = this.hash.digest();
    } else {
      // A hash (not an HMAC) may be read and then updated on, as the SDK's may.
      digest = (this.hash as Hash).copy().digest();
    }
    return new Uint8Array(digest.buffer, digest.byteOffset, digest.byteLength);
  }

  reset(): void {
    this.hash = this.create();
    this.finished = false;
  }

  private create(): Hash | Hmac {
    return this.key === undefined ? createHash('sha256') : createHmac('sha256', this.key);
  }
}

/** Spread into every SDK client's configuration, before the client's own options. */
export const SDK_CLIENT_OPTIONS = { logger: SDK_LOGGER as Logger, sha256: Sha256 } as const;

/**
 * Three attempts of a call, each given up after 2 s from when its request starts (1 s to
 * connect): a call takes milliseconds, so one that hangs is sent again (a plant's write only when
 * it surely was not made: `sentOnce`), and a call's retries fit a function's time. DynamoDB's and
 * KMS's clients are built with these.
 */
export const BOUNDED_CALLS = {
  maxAttempts: 3,
  requestHandler: { connectionTimeout: 1_000, requestTimeout: 2_000, throwOnRequestTimeout: true },
} as const;
