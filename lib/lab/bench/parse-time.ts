/**
 * What the adversarial corpus (`test/support/adversarial-bodies.ts`) costs create-plant's request
 * reading — content type, size, strict JSON, validation — next to a normal body, small and at
 * the size limit, in process: the worst body should be within a few ms of a normal one. The
 * phase also holds the contract's promise that no body within the limits pins a function: a
 * body whose reading takes more than `PARSE_CPU_BUDGET_MS` of CPU fails it (`npm run bench`
 * runs its other phases, then exits 1 naming it). That check lives here, not in the tests: a
 * timed assertion in a suite shares the machine with every other suite and fails on their load,
 * not on the code.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { MAX_BODY_BYTES, readNewPlant } from '../../../lambda/create-plant/request';
import { HttpError } from '../../../lambda/http/answers';
import { PROJECT_ROOT } from '../../definitions/bundling';
import { median } from './measure';
import type { BenchPhase } from './phase';

const REPEATS = 7;

/**
 * CPU milliseconds (user + system, median of the repeats) one body may take to read. A normal
 * body takes well under 1 ms, the worst adversarial one a few ms; the quadratic number parsing
 * this corpus was built against took 22 s on one body. 250 ms is far above any linear reading
 * of 256 KiB and far below what a super-linear path costs.
 */
export const PARSE_CPU_BUDGET_MS = 250;

/**
 * The corpus belongs to the tests (`test/plants/unit/adversarial-bodies.test.ts` checks every answer),
 * so it lives under `test/support/` and `lib/` imports nothing from `test/`: the bench, which
 * runs from a checkout under tsx, loads it from there when the phase runs.
 */
export const CORPUS = join(PROJECT_ROOT, 'test', 'support', 'adversarial-bodies.ts');

/** The corpus's bodies (its answers are the tests' business). */
async function adversarialBodies(): Promise<readonly { name: string; body: string }[]> {
  const corpus = (await import(pathToFileURL(CORPUS).href)) as {
    ADVERSARIAL_BODIES: readonly { name: string; body: string }[];
  };
  return corpus.ADVERSARIAL_BODIES;
}
const ms = (value: number) => `${value.toFixed(2)} ms`;

/** One body's reading time. */
interface Reading {
  /** Median wall ms. */
  readonly ms: number;
  /** Median CPU ms (user + system). */
  readonly cpuMs: number;
}

/**
 * Medians of `repeats` readings of `body` (a rejection counts: it is an answer too), after one
 * warm-up.
 */
function reading(template: string, body: string, repeats: number): Reading {
  const event = JSON.parse(template) as APIGatewayProxyEventV2;
  event.body = body;
  const once = () => {
    const cpu = process.cpuUsage();
    const started = performance.now();
    try {
      readNewPlant(event);
    } catch (error) {
      // A 400 or 413 is the answer the corpus expects, timed all the same; anything else is a
      // fault of the reading, not a figure.
      if (!(error instanceof HttpError)) throw error;
    }
    const wall = performance.now() - started;
    const { user, system } = process.cpuUsage(cpu);
    return { wall, cpu: (user + system) / 1000 };
  };
  once();
  const runs = Array.from({ length: repeats }, once);
  return { ms: median(runs.map((r) => r.wall)), cpuMs: median(runs.map((r) => r.cpu)) };
}

/** What fails the phase: the bodies whose reading took more CPU than `budgetMs`, if any. */
export function overBudget(
  readings: readonly { readonly name: string; readonly cpuMs: number }[],
  budgetMs = PARSE_CPU_BUDGET_MS,
): string | undefined {
  const over = readings.filter(({ cpuMs }) => cpuMs > budgetMs);
  if (over.length === 0) return undefined;
  return `over the ${budgetMs} ms CPU budget of one body: ${over
    .map(({ name, cpuMs }) => `${name} ${ms(cpuMs)} of CPU`)
    .join(', ')}`;
}

/** The parse-time phase, holding each body to `budgetMs` of CPU, each read `repeats` times. */
export const parsePhase = (budgetMs = PARSE_CPU_BUDGET_MS, repeats = REPEATS): BenchPhase => ({
  name: 'parse',
  description: `worst adversarial body at the 256 KiB limit vs a normal body (request reading; fails over ${budgetMs} ms of CPU)`,
  async run({ print, fail }) {
    // No median of no readings: NaN would pass every body.
    if (!Number.isInteger(repeats) || repeats < 1) {
      throw new RangeError(`repeats must be a whole number from 1, not ${repeats}`);
    }
    const template = readFileSync(join(PROJECT_ROOT, 'events', 'create-plant.json'), 'utf8');
    const small = '{"id":1,"name":"Monstera","tag":"aroid"}';
    const head = '{"id":1,"name":"Monstera","tag":"aroid","notes":"';
    const large = `${head}${'x'.repeat(MAX_BODY_BYTES - head.length - 2)}"}`;
    const timed = (await adversarialBodies())
      .map(({ name, body }) => ({ name, ...reading(template, body, repeats) }))
      .sort((a, b) => b.ms - a.ms);
    const smallMs = reading(template, small, repeats).ms;
    const largeMs = reading(template, large, repeats).ms;
    print(
      `Request reading, in process on ${process.version} (create-plant's readNewPlant, medians of ${repeats} after a warm-up):`,
    );
    print(`  normal body: ${ms(smallMs)} (${small.length} bytes), ${ms(largeMs)} at 256 KiB`);
    print(
      `  worst of ${timed.length} adversarial bodies: ${timed
        .slice(0, 3)
        .map(({ name, ms: t }) => `${name} ${ms(t)}`)
        .join(', ')}`,
    );
    const over = overBudget(timed, budgetMs);
    if (over) fail(over);
    print(over ? `  ${over}\n` : `  every body within the ${budgetMs} ms CPU budget of one body\n`);
  },
});

/** The phase as `npm run bench` runs it. */
export const parseTime = parsePhase();
