/**
 * The endpoint cache bundled in place of `@aws-sdk/endpoint-cache` answers exactly as the
 * original does, operation by operation, over long random sequences (eviction order included).
 */
import { EndpointCache as Original } from '@aws-sdk/endpoint-cache';
import { EndpointCache as Ours } from '../../../lambda/aws/stubs/endpoint-cache';

/** A small deterministic PRNG, so that a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

it.each([1, 2, 3, 4, 5])('matches the original over 2,000 random operations (seed %i)', (seed) => {
  const next = random(seed);
  const capacity = 1 + Math.floor(next() * 5);
  const [original, ours] = [new Original(capacity), new Ours(capacity)];
  let now = 1_000_000;
  const spy = jest.spyOn(Date, 'now').mockImplementation(() => now);
  try {
    for (let step = 0; step < 2_000; step++) {
      const key = `k${Math.floor(next() * 8)}`;
      const choice = next();
      now += Math.floor(next() * 30_000);
      let a: unknown;
      let b: unknown;
      if (choice < 0.3) {
        const endpoints = Array.from({ length: Math.floor(next() * 3) }, (_, i) => ({
          Address: `${key}-${step}-${i}`,
          CachePeriodInMinutes: Math.floor(next() * 3),
        }));
        a = original.set(key, endpoints);
        b = ours.set(key, endpoints);
      } else if (choice < 0.6) {
        [a, b] = [original.get(key), ours.get(key)];
      } else if (choice < 0.8) {
        [a, b] = [original.has(key), ours.has(key)];
      } else if (choice < 0.9) {
        [a, b] = [original.delete(key), ours.delete(key)];
      } else if (choice < 0.99) {
        // One address only, so that the random pick cannot differ (both caches see the get).
        const single = original.get(key)?.length === 1;
        expect(ours.get(key)?.length === 1).toBe(single);
        [a, b] = single ? [original.getEndpoint(key), ours.getEndpoint(key)] : [0, 0];
      } else {
        [a, b] = [original.clear(), ours.clear()];
      }
      expect({ step, answer: b }).toEqual({ step, answer: a });
    }
    for (let k = 0; k < 8; k++) expect(ours.has(`k${k}`)).toBe(original.has(`k${k}`));
  } finally {
    spy.mockRestore();
  }
});

it('refuses a capacity that is not positive, as the original does', () => {
  expect(() => new Original(0)).toThrow();
  expect(() => new Ours(0)).toThrow();
});
