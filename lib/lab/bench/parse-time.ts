/**
 * What the adversarial corpus (`test/support/adversarial-bodies.ts`) costs create-plant's request
 * reading — content type, size, strict JSON, validation — next to a normal body, small and at
 * the size limit, in process: the worst body should be within a few ms of a normal one.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { MAX_BODY_BYTES, readNewPlant } from '../../../lambda/create-plant/request';
import { PROJECT_ROOT } from '../../definitions/bundling';
import { median } from './measure';
import type { BenchPhase } from './phase';

const REPEATS = 7;

/**
 * The corpus belongs to the tests (`test/plants/unit/adversarial-bodies.test.ts` checks every answer),
 * so it lives under `test/corpus/` and `lib/` imports nothing from `test/`: the bench, which
 * runs from a checkout under tsx, loads it from there when the phase runs.
 */
const CORPUS = join(PROJECT_ROOT, 'test', 'corpus', 'adversarial-bodies.ts');

/** The corpus's bodies (its answers are the tests' business). */
async function adversarialBodies(): Promise<readonly { name: string; body: string }[]> {
  const corpus = (await import(pathToFileURL(CORPUS).href)) as {
    ADVERSARIAL_BODIES: readonly { name: string; body: string }[];
  };
  return corpus.ADVERSARIAL_BODIES;
}
const ms = (value: number) => `${value.toFixed(2)} ms`;

/** Median ms of reading `body` (a rejection counts: it is an answer too), after one warm-up. */
function readingMs(template: string, body: string): number {
  const event = JSON.parse(template) as APIGatewayProxyEventV2;
  event.body = body;
  const once = () => {
    const started = performance.now();
    try {
      readNewPlant(event);
    } catch {
      // a 400 or 413: the answer the corpus expects, timed all the same
    }
    return performance.now() - started;
  };
  once();
  return median(Array.from({ length: REPEATS }, once));
}

/** The parse-time phase. */
export const parseTime: BenchPhase = {
  name: 'parse',
  description: 'worst adversarial body at the 256 KiB limit vs a normal body (request reading)',
  async run({ print }) {
    const template = readFileSync(join(PROJECT_ROOT, 'events', 'create-plant.json'), 'utf8');
    const small = '{"id":1,"name":"Monstera","tag":"aroid"}';
    const head = '{"id":1,"name":"Monstera","tag":"aroid","notes":"';
    const large = `${head}${'x'.repeat(MAX_BODY_BYTES - head.length - 2)}"}`;
    const timed = (await adversarialBodies())
      .map(({ name, body }) => ({
        name,
        ms: readingMs(template, body),
      }))
      .sort((a, b) => b.ms - a.ms);
    const smallMs = readingMs(template, small);
    const largeMs = readingMs(template, large);
    print(
      `Request reading, in process on ${process.version} (create-plant's readNewPlant, medians of ${REPEATS} after a warm-up):`,
    );
    print(`  normal body: ${ms(smallMs)} (${small.length} bytes), ${ms(largeMs)} at 256 KiB`);
    print(
      `  worst of ${timed.length} adversarial bodies: ${timed
        .slice(0, 3)
        .map(({ name, ms: t }) => `${name} ${ms(t)}`)
        .join(', ')}\n`,
    );
  },
};
