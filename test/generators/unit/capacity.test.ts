/**
 * docs/capacity.md holds exactly the tables the model computes from its inputs, every input names
 * its AWS source, each capacity preset of the stages is what the model asks for, and the
 * arithmetic the page explains is the arithmetic the model does.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CAPACITY_PRESETS } from '../../../lib/infra/stages';
import { PRICES, QUOTAS } from '../../../lib/generators/capacity/inputs';
import {
  cacheHitRate,
  creates,
  deliveryThroughput,
  model,
  readHeavy,
} from '../../../lib/generators/capacity/model';
import { capacityTables, MARKERS } from '../../../lib/generators/capacity/tables';

const DOC = readFileSync(join(__dirname, '../../../docs/capacity.md'), 'utf8');
/** Prettier aligns the columns of Markdown tables; the figures are what must match. */
const normalise = (text: string) =>
  text
    .replace(/[ \t]+/g, ' ')
    .replace(/-{3,}/g, '---')
    .trim();

describe('docs/capacity.md', () => {
  it('holds the tables npm run capacity prints (run it and paste them if this fails)', () => {
    const begin = DOC.indexOf(MARKERS.begin);
    const end = DOC.indexOf(MARKERS.end);
    expect(begin).toBeGreaterThan(0);
    expect(end).toBeGreaterThan(begin);
    expect(normalise(DOC.slice(begin, end + MARKERS.end.length))).toBe(normalise(capacityTables()));
  });

  it('names an AWS page for every quota and price', () => {
    for (const input of [...Object.values(QUOTAS), ...Object.values(PRICES)]) {
      for (const url of input.source.split(' and ')) {
        expect(url).toMatch(/^https:\/\/(docs\.aws\.amazon\.com|aws\.amazon\.com)\/\S+$/);
        expect(DOC).toContain(url);
      }
    }
  });
});

describe('the capacity presets', () => {
  it.each(Object.entries(CAPACITY_PRESETS))('%s is what the model asks for', (name, preset) => {
    const rate = Number(name.replace('k', '')) * 1000;
    const at = model(creates(rate));
    expect(preset.throttlingRateLimit).toBe(1.2 * rate);
    expect(preset.throttlingBurstLimit).toBe(preset.throttlingRateLimit);
    const reserved = preset.reservedConcurrency['create-plant'];
    expect(reserved).toBe(Math.ceil(3 * at.concurrency['create-plant']!));
    // Lambda keeps 100 unreserved: only 100k needs the account's concurrency raised.
    const fits = reserved + QUOTAS.lambdaUnreserved.value <= QUOTAS.lambdaConcurrency.value;
    expect(fits).toBe(name !== '100k');
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

  it('counts a write unit per create and a read unit per get', () => {
    const at = model({ create: 10, get: 100, list: 0, delete: 0 }, { subscribers: 0 });
    expect(at.writeUnits).toBe(10);
    expect(at.readUnits).toBeCloseTo(100 + 1000 / 300);
    expect(model(readHeavy(1000)).mix).toEqual({ create: 90, get: 800, list: 100, delete: 10 });
  });
});
