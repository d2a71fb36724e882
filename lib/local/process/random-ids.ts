/**
 * Random ids for what the local runtime makes on every request (API Gateway's request id, a
 * stream record's event id), drawn from a pool of random bytes. Each call to the system's
 * generator costs about the same whatever its size, and on some virtual machines it costs tens
 * of microseconds (the CPU's random instruction traps to the hypervisor): one call fills the
 * pool for hundreds of ids, as Node's `randomUUID` does for its own.
 */
import { randomFillSync } from 'node:crypto';

const pool = Buffer.alloc(4096);
let used = pool.length;

/** `size` random bytes (at most the pool's 4096) as text in `encoding`. */
export function randomText(size: number, encoding: 'hex' | 'base64'): string {
  if (size > pool.length) throw new RangeError(`at most ${pool.length} bytes, not ${size}`);
  if (used + size > pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  const text = pool.toString(encoding, used, used + size);
  used += size;
  return text;
}
