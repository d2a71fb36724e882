/** Ids drawn from the pool of random bytes: their shape, and no repeat across pool refills. */
import { randomText } from '../../../lib/local/process/random-ids';
import { newRequestId } from '../../../lib/local/gateway/events';

describe('random ids from the pool', () => {
  it('gives the bytes asked for as hex or base64, none repeated across many refills', () => {
    const seen = new Set<string>();
    // 16 bytes each: the 4 KiB pool is refilled every 256 ids, about 40 times here.
    for (let i = 0; i < 10_000; i++) {
      const id = randomText(16, 'hex');
      expect(id).toMatch(/^[0-9a-f]{32}$/);
      seen.add(id);
    }
    expect(seen.size).toBe(10_000);
    // A size that does not divide the pool: the id is never cut at its end.
    for (let i = 0; i < 1_000; i++)
      expect(Buffer.from(randomText(39, 'base64'), 'base64')).toHaveLength(39);
  });

  it('makes request ids shaped like API Gateway`s', () => {
    const ids = new Set(Array.from({ length: 2_000 }, () => newRequestId()));
    expect(ids.size).toBe(2_000);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9+/]{14}=$/);
  });

  it('refuses more bytes than the pool holds', () => {
    expect(() => randomText(4097, 'hex')).toThrow(RangeError);
  });
});
