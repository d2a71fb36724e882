/**
 * Every input of the capacity model names its AWS source and is used by the model, each capacity
 * preset of the stages is what the model asks for, and the model does the arithmetic it states.
 * (docs/capacity.md's figures are written by `npm run generate`, which checks them fresh.)
 */
import { CAPACITY_PRESETS } from '../../../lib/infra/stages';
import * as inputs from '../../../lib/generators/capacity/inputs';
import {
  cacheHitRate,
  creates,
  deliveryThroughput,
  model,
  readHeavy,
  type LevelModel,
} from '../../../lib/generators/capacity/model';
import { quotaNeeds, warmWrites } from '../../../lib/generators/capacity/pool';
import {
  presetFor,
  PRESET_RATES,
  RESERVE_SLOWDOWN,
} from '../../../lib/generators/capacity/presets';
import { webhookLoad } from '../../../lib/generators/capacity/webhook';

/** Every property path read through the inputs module while the model runs. */
jest.mock('../../../lib/generators/capacity/inputs', () => {
  // Created here: the mock runs when the model first imports the inputs, before this file's own lines.
  const read = ((globalThis as { capacityInputsRead?: Set<string> }).capacityInputsRead ??=
    new Set<string>());
  const actual = jest.requireActual('../../../lib/generators/capacity/inputs');
  const track = (value: unknown, path: string): unknown =>
    typeof value !== 'object' || value === null
      ? value
      : new Proxy(value, {
          get(target, key, receiver) {
            const child = `${path}.${String(key)}`;
            if (typeof key === 'string') read.add(child);
            return track(Reflect.get(target, key, receiver), child);
          },
        });
  const tracked = Object.fromEntries(
    Object.entries(actual).map(([name, value]) => [name, track(value, name)]),
  );
  return new Proxy(tracked, {
    get(target, key) {
      if (typeof key === 'string') read.add(key);
      return target[key as string];
    },
  });
});
const { PRICES, QUOTAS } = inputs;
const read = (globalThis as { capacityInputsRead?: Set<string> }).capacityInputsRead!;
import { raisingNeeds } from '../../../lib/generators/capacity/tables';

describe('the inputs', () => {
  it('name an AWS page for every quota and price', () => {
    for (const input of [...Object.values(QUOTAS), ...Object.values(PRICES)]) {
      for (const url of input.source.split(' and ')) {
        expect(url).toMatch(/^https:\/\/(docs\.aws\.amazon\.com|aws\.amazon\.com)\/\S+$/);
      }
    }
  });
});

describe('the capacity presets', () => {
  const rateOf = (name: string) => Number(name.replace('k', '')) * 1000;
  const needs = raisingNeeds();
  /** The account concurrency the raising table asks for at `rate`: the most either mix needs. */
  const raised = (rate: number) =>
    Math.max(
      QUOTAS.lambdaConcurrency.value,
      Math.ceil(
        needs[inputs.LEVELS.indexOf(rate as (typeof inputs.LEVELS)[number])]!.lambdaConcurrency,
      ),
    );
  const sum = (values: Record<string, number>) => Object.values(values).reduce((a, b) => a + b, 0);
  /** The functions of `m` without a reservation in `preset`. */
  const unreserved = (m: LevelModel, preset: { reservedConcurrency: object }) =>
    Object.keys(m.invocationsBy).filter((name) => !(name in preset.reservedConcurrency));
  /** A mix of `requests` a second, all to the operation `op` (`creates` names every operation). */
  const only = (op: string, requests: number) => ({
    ...Object.fromEntries(Object.keys(creates(0)).map((name) => [name, 0])),
    [op]: requests,
  });
  /** So many tokens that the authorizer misses on every request. */
  const ALL_MISS = 1e12;

  it('are the rates the model deploys a preset at, and no other', () => {
    expect(Object.keys(CAPACITY_PRESETS).map(rateOf)).toEqual([...PRESET_RATES]);
    // Below the 1k preset a stage runs without one: nothing is reserved, and the page says so.
    const at = model(creates(100));
    expect(at.reserved).toEqual({});
    const row = at.pressure.find((p) => p.what.startsWith('create-plant invocations a second'))!;
    expect(row.none).toBe('—, no preset');
    expect(model(creates(1000)).reserved).toEqual({ 'create-plant': 120 });
  });

  it.each(Object.entries(CAPACITY_PRESETS))('%s is what the model asks for', (name, preset) => {
    const rate = rateOf(name);
    expect(preset).toEqual(presetFor(rate));
    const at = model(creates(rate));
    expect(at.reserved).toEqual(preset.reservedConcurrency);
    for (const [fn, reserved] of Object.entries(preset.reservedConcurrency)) {
      // 3 × the modelled concurrency at least: a DynamoDB slowdown to 3× its latency is served.
      expect(reserved).toBeGreaterThanOrEqual(RESERVE_SLOWDOWN * at.concurrency[fn]!);
      // Every request the throttle lets through may be this function's: 10 invocations a second per unit.
      expect(reserved * 10).toBeGreaterThanOrEqual(preset.throttlingRateLimit);
      // And no more than the larger of the two: a reservation takes its units from every other function.
      expect(reserved).toBeLessThanOrEqual(
        Math.max(
          Math.ceil(RESERVE_SLOWDOWN * at.concurrency[fn]!),
          Math.ceil(preset.throttlingRateLimit / 10),
        ),
      );
    }
    // The account's concurrency holds the reservations and Lambda's 100; from 10k it is raised.
    const reservations = sum(preset.reservedConcurrency);
    expect(raised(rate)).toBeGreaterThanOrEqual(reservations + QUOTAS.lambdaUnreserved.value);
    expect(raised(rate) > QUOTAS.lambdaConcurrency.value).toBe(name !== '1k');
  });

  it.each(Object.entries(CAPACITY_PRESETS))(
    '%s leaves the functions without a reservation what the read-heavy mix needs, at its rate and at the throttle',
    (name, preset) => {
      const rate = rateOf(name);
      const pool = raised(rate) - sum(preset.reservedConcurrency);
      for (const at of [model(readHeavy(rate)), model(readHeavy(preset.throttlingRateLimit))]) {
        const names = unreserved(at, preset);
        // Per function: each at most 10 × the pool a second; together, at once, in the pool.
        for (const fn of names) expect(at.invocationsBy[fn]!).toBeLessThanOrEqual(10 * pool);
        expect(names.reduce((s, fn) => s + at.concurrency[fn]!, 0)).toBeLessThanOrEqual(pool);
      }
      // The pressure row says the same at the rate, and a creates-only flood fits too.
      for (const at of [model(readHeavy(rate)), model(creates(rate))]) {
        const row = at.pressure.find((p) => p.what.startsWith('functions without a reservation'))!;
        expect(row.demand).toBeLessThan(row.limit);
      }
    },
  );

  it.each(Object.entries(CAPACITY_PRESETS))(
    '%s holds the worst case at the throttle: every request to the one function that needs the most, the authorizer missing on each',
    (name, preset) => {
      const quota = raised(rateOf(name));
      const pool = quota - sum(preset.reservedConcurrency);
      const throttle = preset.throttlingRateLimit;
      for (const op of Object.keys(creates(0))) {
        const at = model(only(op, throttle), { tokens: ALL_MISS });
        expect(at.authorizer).toBe(throttle);
        // Per function: every function without a reservation, the authorizer among them.
        for (const fn of unreserved(at, preset)) {
          expect(at.invocationsBy[fn]!).toBeLessThanOrEqual(10 * pool);
        }
        // Concurrency: those without a reservation run at once in the pool, together.
        const together = unreserved(at, preset).reduce((s, fn) => s + at.concurrency[fn]!, 0);
        expect(together).toBeLessThanOrEqual(pool);
        // Account: every function together, the reserved ones too, at most 10 × the quota.
        expect(at.invocations).toBeLessThanOrEqual(10 * quota);
      }
      // The same with each poll of the fan-out split (more, smaller batches): the pool's account rule.
      const pooled = model(creates(rateOf(name))).pool;
      expect(pooled.rules.account).toBeLessThanOrEqual(quota);
      expect(pooled.rules.account * 10).toBeGreaterThan(2 * throttle);
    },
  );

  it.each(['10k', '100k'] as const)(
    '%s: a quota sized without the route functions at the throttle would not hold the reads',
    (name) => {
      const preset = CAPACITY_PRESETS[name];
      // The pool's parts but the routes' (reservations, authorizer at its tokens, webhook, floor).
      const { reserved, authorizer, fanOut, deliver, floor } = model(creates(rateOf(name))).pool;
      const without = reserved + authorizer + fanOut + deliver + floor;
      expect(without).toBeGreaterThanOrEqual(reserved + QUOTAS.lambdaUnreserved.value);
      const reads = model(readHeavy(preset.throttlingRateLimit));
      // get-plant alone would be invoked more than 10 × the pool it left: Lambda throttles reads.
      expect(reads.invocationsBy['get-plant']!).toBeGreaterThan(10 * (without - reserved));
      expect(reads.invocationsBy['get-plant']!).toBeLessThanOrEqual(
        10 * (raised(rateOf(name)) - reserved),
      );
    },
  );

  it('100k: the reservation + the throttle ÷ 10 + 100 alone would not hold the account rate when every token misses', () => {
    const preset = CAPACITY_PRESETS['100k'];
    const throttle = preset.throttlingRateLimit;
    const perFunctionOnly =
      sum(preset.reservedConcurrency) + throttle / 10 + QUOTAS.lambdaUnreserved.value;
    const at = model(creates(throttle), { tokens: ALL_MISS });
    expect(at.invocations).toBeGreaterThan(10 * perFunctionOnly);
    expect(at.invocations).toBeLessThanOrEqual(10 * raised(100_000));
  });

  it('shows each reserved function against 10 × its reservation in the pressure table', () => {
    const at = model(creates(10_000));
    const row = at.pressure.find((p) => p.what.startsWith('create-plant invocations a second'))!;
    expect(row.demand).toBeCloseTo(
      at.invocationsBy['create-plant']! /
        (QUOTAS.lambdaFunctionRequestsPerConcurrency.value * at.reserved['create-plant']!),
    );
    expect(row.demand).toBeLessThan(row.limit);
  });
});

describe('the model', () => {
  it('caches one authorizer decision per token per 300 s', () => {
    expect(cacheHitRate(1000, 1000)).toBeCloseTo(1 - 1000 / 300 / 1000);
    expect(cacheHitRate(100, 1_000_000)).toBe(0);
    expect(model(creates(1000), { tokens: 3000 }).authorizer).toBeCloseTo(10);
  });

  it('delivers 50 × 100 ÷ the receivers latency a second', () => {
    expect(deliveryThroughput(200)).toBe(25_000);
    expect(deliveryThroughput(10_000)).toBe(500);
  });

  it('blends the monthly tiers: HTTP API past 300 million requests', () => {
    // 100 a second is 259.2 million in 30 days: all at $1.00; 1,000 a second is 2,592 million.
    expect(model(creates(100)).costPerMillion['API Gateway']).toBeCloseTo(1.0);
    expect(model(creates(1000)).costPerMillion['API Gateway']).toBeCloseTo(
      (300 * 1.0 + 2292 * 0.9) / 2592,
    );
  });

  it('counts a write unit per create and change, one per delete (its tombstone), and a read unit per get', () => {
    const at = model(
      {
        'create-plant': 10,
        'get-plant': 100,
        'update-plant': 3,
        'patch-plant': 2,
        'delete-plant': 1,
      },
      { subscribers: 0 },
    );
    expect(at.writeUnits).toBe(10 + 3 + 2 + 1);
    expect(at.readUnits).toBeCloseTo(100 + 1000 / 300);
    expect(model(readHeavy(1000)).mix).toEqual({
      'create-plant': 70,
      'get-plant': 780,
      'list-plants': 100,
      'update-plant': 20,
      'patch-plant': 20,
      'delete-plant': 10,
    });
  });

  it('refuses a mix that names no operation of the registry', () => {
    expect(() => model({ create: 1 })).toThrow(
      'capacity: the mix names create: no operation of the registry',
    );
  });
});

describe('the inputs', () => {
  it('are each used by the model (an input it never reads fails here: use it or remove it)', () => {
    read.clear();
    for (const rate of inputs.LEVELS) {
      for (const mix of [creates(rate), readHeavy(rate)]) {
        quotaNeeds(model(mix));
        for (const subscribers of [10, 100]) quotaNeeds(model(mix, { subscribers }));
      }
    }
    const leaves = [
      ...Object.keys(inputs.QUOTAS).map((key) => `QUOTAS.${key}.value`),
      ...Object.keys(inputs.PRICES).map((key) => `PRICES.${key}.value`),
      ...Object.entries(inputs.MEASURED.request.functions).flatMap(([name, figures]) =>
        Object.keys(figures).map((figure) => `MEASURED.request.functions.${name}.${figure}`),
      ),
      'MEASURED.fanOut.cpuMsPerCall',
      ...Object.keys(inputs.DEPLOYED_ASSUMPTIONS).map((key) => `DEPLOYED_ASSUMPTIONS.${key}`),
      'SECONDS_PER_MONTH',
    ];
    expect(leaves.filter((leaf) => !read.has(leaf))).toEqual([]);
  });
});

describe('the webhook in the model', () => {
  it('counts the SQS requests the code makes: a send per ten deliveries, a receive and a delete per ten', () => {
    // 1,000 creates a second at one subscriber: full batches of 100, ten calls each.
    const at = webhookLoad({ records: 1000, writes: 1000 }, 1, 200);
    expect(at.recordsPerBatch).toBe(100);
    expect(at.callsPerBatch).toBe(10);
    expect(at.sqsRequests).toBeCloseTo(100 + 100 + 100);
    // Ten subscribers: 100 calls a batch.
    expect(webhookLoad({ records: 1000, writes: 1000 }, 10, 200).callsPerBatch).toBe(100);
    // 100 creates a second on one shard, polled four times a second: batches of 25.
    expect(webhookLoad({ records: 100, writes: 100 }, 1, 200).recordsPerBatch).toBe(25);
  });

  it('models a poll split among the ParallelizationFactor batches as smaller batches, more invocations', () => {
    const stream = { records: 100_000, writes: 100_000 };
    const whole = webhookLoad(stream, 1, 200);
    const split = webhookLoad(stream, 1, 200, 10);
    // 100 shards, 1,000 records a second each, 250 a poll: batches of 100 whole, 25 split.
    expect(whole.recordsPerBatch).toBe(100);
    expect(split.recordsPerBatch).toBe(25);
    expect(split.fanOutInvocations).toBe(4 * whole.fanOutInvocations);
    // The Scans are the worst case either way.
    expect(split.scans).toBe(whole.scans);
  });

  it("counts the deliverer's calls on the subscriptions table: a grant per sandbox, subscriber and second, a record per 10 s", () => {
    // 100,000 creates a second at one subscriber: the deliverer's 50 sandboxes, each granting
    // itself the subscriber's slots once a second and recording its attempts every 10 s.
    const one = webhookLoad({ records: 100_000, writes: 100_000 }, 1, 200);
    expect(one.deliverSandboxes).toBe(50);
    expect(one.grants).toBe(50);
    expect(one.attemptRecords).toBe(5);
    // A grant bills the subscriber's item (one unit); a record, it and the attempts item (three).
    expect(one.subscriptionWrites).toBe(50 * 1 + 5 * (1 + 3));
    // Ten subscribers: each sandbox works for every one of them.
    const ten = webhookLoad({ records: 100_000, writes: 100_000 }, 10, 200);
    expect(ten.grants).toBe(500);
    expect(ten.subscriberItemWrites).toBe(55);
    // Few batches: one grant and one record per batch and subscriber at most.
    const few = webhookLoad({ records: 10, writes: 10 }, 1, 200);
    expect(few.grants).toBeCloseTo(0.1);
    expect(few.attemptRecords).toBeCloseTo(0.1);
    // Under one partition at 100,000 creates a second, at one subscriber and at ten.
    const pressure = (subscribers: number) =>
      model(creates(100_000), { subscribers }).pressure.find((p) =>
        p.what.startsWith('subscriptions table, one partition ('),
      )!;
    for (const subscribers of [1, 10]) {
      expect(pressure(subscribers).demand).toBeLessThan(pressure(subscribers).limit);
    }
  });

  it('sizes Lambda by its request rate too: 100,000 creates a second need about 10,200 concurrency', () => {
    const at = model(creates(100_000));
    expect(at.invocations / 10).toBeGreaterThan(
      Object.values(at.concurrency).reduce((a, b) => a + b),
    );
    expect(Math.round(at.accountConcurrency / 100) * 100).toBe(10_200);
    expect(at.coldRampSeconds).toBe(100);
    // The 100k plan pre-warms the table to the throttle's 120,000 writes: 120 partitions and
    // shards at least, each with 10 sandboxes at most, reading the subscribers once per 10 s.
    expect(at.webhook.shards).toBe(120);
    expect(at.webhook.scans).toBe(120);
  });

  it('counts a shard per 1,000 writes or warm write units, whichever is more', () => {
    const stream = { records: 100_000, writes: 100_000 };
    expect(webhookLoad(stream, 1, 200).shards).toBe(100);
    expect(webhookLoad({ ...stream, warm: 120_000 }, 1, 200).shards).toBe(120);
    expect(webhookLoad({ ...stream, warm: 50_000 }, 1, 200).shards).toBe(100);
    // Where no plan pre-warms (no preset, or a throttle a new table takes), a new on-demand
    // table's 4,000 warm writes decide: four partitions, four shards, however few the writes.
    expect(model(creates(100)).webhook.shards).toBe(4);
    expect(model(creates(1000)).webhook.shards).toBe(4);
    expect(model(creates(10_000)).webhook.shards).toBe(12);
    expect(warmWrites(100)).toBe(QUOTAS.dynamoNewTableWrites.value);
    expect(warmWrites(100_000)).toBe(CAPACITY_PRESETS['100k'].throttlingRateLimit);
  });
});
