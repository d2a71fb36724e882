/** The authorizer's decision cache, without sockets: TTL, eviction of expired entries, the cap. */
import { DecisionCache } from '../../../lib/local/gateway/decision-cache';

function cache(ttlSeconds: number, maxEntries: number) {
  let now = 0;
  const made = new DecisionCache<string>({ ttlSeconds, maxEntries, now: () => now });
  return { cache: made, advance: (ms: number) => (now += ms) };
}

describe('the decision cache', () => {
  it('stays within its cap after many distinct identities, keeping the newest', () => {
    const { cache: c } = cache(300, 100);
    for (let i = 0; i < 5_000; i++) c.set(`Bearer ${'x'.repeat(1000)}${i}`, `d${i}`);
    expect(c.size).toBe(100);
    expect(c.get(`Bearer ${'x'.repeat(1000)}4999`)).toBe('d4999');
    expect(c.get(`Bearer ${'x'.repeat(1000)}4900`)).toBe('d4900');
    expect(c.get(`Bearer ${'x'.repeat(1000)}4899`)).toBeUndefined();
  });

  it('drops expired entries, not only the one asked for', () => {
    const { cache: c, advance } = cache(10, 100);
    c.set('a', 'A');
    advance(5_000);
    c.set('b', 'B');
    advance(5_000);
    expect(c.get('a')).toBeUndefined();
    expect(c.size).toBe(1);
    expect(c.get('b')).toBe('B');
    advance(5_000);
    c.set('c', 'C');
    expect(c.size).toBe(1);
  });

  it('renews an identity set again, so it is the last to go', () => {
    const { cache: c, advance } = cache(10, 2);
    c.set('a', 'A1');
    c.set('b', 'B');
    advance(1_000);
    c.set('a', 'A2');
    c.set('c', 'C');
    expect([c.get('a'), c.get('b'), c.get('c')]).toEqual(['A2', undefined, 'C']);
  });

  it('with a TTL of 0 keeps nothing', () => {
    const { cache: c } = cache(0, 100);
    c.set('a', 'A');
    expect(c.get('a')).toBeUndefined();
    expect(c.size).toBe(0);
  });
});
