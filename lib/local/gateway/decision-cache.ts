/**
 * The authorizer's decision cache: keyed by the identity-source value and shared by every
 * route, as API Gateway's is; bounded so that a stream of distinct tokens cannot grow it.
 */
import { createHash } from 'node:crypto';

/** How long decisions live and how many are kept. */
export interface DecisionCacheOptions {
  /** Seconds a decision is kept; 0 turns caching off. */
  readonly ttlSeconds: number;
  /** Decisions kept at most; past it the oldest goes first. */
  readonly maxEntries: number;
  readonly now: () => number;
}

/** Decisions by identity value, expiring after the TTL, at most `maxEntries` of them. */
export class DecisionCache<T> {
  // Map keeps insertion order, and every entry lives the same TTL, so the first entries are
  // always the first to expire: eviction stops at the first live one.
  private readonly entries = new Map<string, { readonly expires: number; readonly value: T }>();

  constructor(private readonly options: DecisionCacheOptions) {}

  /** Decisions held now (expired ones are dropped whenever the cache is used). */
  get size(): number {
    return this.entries.size;
  }

  /** The live decision for `identity`, if any. */
  get(identity: string): T | undefined {
    if (this.options.ttlSeconds <= 0) return undefined;
    this.evictExpired();
    return this.entries.get(keyOf(identity))?.value;
  }

  /** Keeps a decision for the TTL, dropping the oldest past the cap. */
  set(identity: string, value: T): void {
    if (this.options.ttlSeconds <= 0) return;
    const key = keyOf(identity);
    this.entries.delete(key);
    this.entries.set(key, { expires: this.options.now() + this.options.ttlSeconds * 1000, value });
    this.evictExpired();
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.options.maxEntries) break;
      this.entries.delete(oldest);
    }
  }

  private evictExpired(): void {
    const now = this.options.now();
    for (const [key, entry] of this.entries) {
      if (entry.expires > now) break;
      this.entries.delete(key);
    }
  }
}

/** A digest, not the value: an identity may be up to ~10 KB, and the cache must not hold it. */
function keyOf(identity: string): string {
  return createHash('sha256').update(identity).digest('base64');
}
