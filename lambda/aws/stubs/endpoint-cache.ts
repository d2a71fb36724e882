/**
 * Bundled in place of `@aws-sdk/endpoint-cache` (see `lib/definitions/bundling.ts`): the same class with
 * the same behaviour, its least-recently-used eviction kept on a `Map` instead of the
 * `mnemonist` package (~7 KB with `obliterator`). Every DynamoDB client builds one, though
 * endpoint discovery stays off unless enabled; `test/functions/unit/endpoint-cache.test.ts` holds the two
 * implementations to the same answers.
 */

interface Endpoint {
  Address?: string;
  CachePeriodInMinutes?: number;
}

/** An endpoint and the epoch milliseconds it expires at. */
export interface EndpointWithExpiry {
  Address: string | undefined;
  Expires: number;
}

/** Discovered endpoints per key, at most `capacity` keys, the least recently used evicted. */
export class EndpointCache {
  private readonly cache = new Map<string, EndpointWithExpiry[]>();

  constructor(private readonly capacity: number) {
    if (typeof capacity !== 'number' || capacity <= 0) {
      throw new Error('endpoint cache: capacity should be a positive number');
    }
  }

  /** One un-expired endpoint for `key`, at random, or undefined. */
  getEndpoint(key: string): string | undefined {
    const endpoints = this.get(key);
    if (!endpoints || endpoints.length === 0) return undefined;
    return endpoints.map((endpoint) => endpoint.Address)[
      Math.floor(Math.random() * endpoints.length)
    ];
  }

  /** The un-expired endpoints for `key` (marking it recently used), or undefined. */
  get(key: string): EndpointWithExpiry[] | undefined {
    if (!this.has(key)) return undefined;
    const value = this.cache.get(key)!;
    this.touch(key, value);
    const now = Date.now();
    const live = value.filter((endpoint) => now < endpoint.Expires);
    if (live.length === 0) {
      this.delete(key);
      return undefined;
    }
    return live;
  }

  /** Stores `endpoints` for `key`, each expiring after its cache period. */
  set(key: string, endpoints: Endpoint[]): void {
    const now = Date.now();
    this.touch(
      key,
      endpoints.map(({ Address, CachePeriodInMinutes }) => ({
        Address,
        Expires: now + (CachePeriodInMinutes as number) * 60 * 1000,
      })),
    );
  }

  /** Forgets the endpoints of `key` (an empty entry, as the original keeps it). */
  delete(key: string): void {
    this.touch(key, []);
  }

  /** True when `key` holds endpoints, expired or not (without marking it used). */
  has(key: string): boolean {
    return (this.cache.get(key)?.length ?? 0) > 0;
  }

  /** Forgets everything. */
  clear(): void {
    this.cache.clear();
  }

  private touch(key: string, value: EndpointWithExpiry[]): void {
    this.cache.delete(key);
    this.cache.set(key, value);
    if (this.cache.size > this.capacity) this.cache.delete(this.cache.keys().next().value!);
  }
}
