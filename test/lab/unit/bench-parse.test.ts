/**
 * The bench's request-reading phase, run in process: it finds the adversarial corpus where the
 * tests keep it, reads every body, and fails on a body over its CPU budget. Nothing here asserts
 * a time: the figures, and whether they pass the budget, are the bench's (CI runs
 * `npm run bench -- --phases parse` alone, after the suite). What is asserted does not depend on
 * the machine's speed: a budget below zero fails every body, whatever they take.
 */
import { existsSync } from 'node:fs';
import {
  CORPUS,
  PARSE_CPU_BUDGET_MS,
  overBudget,
  parsePhase,
  parseTime,
} from '../../../lib/lab/bench/parse-time';
import { PHASES } from '../../../lib/lab/bench/phases';
import type { BenchContext } from '../../../lib/lab/bench/phase';
import { ADVERSARIAL_BODIES } from '../../support/adversarial-bodies';

/** Runs `phase` in process: what it printed, and what it failed on. */
async function run(phase: typeof parseTime) {
  const lines: string[] = [];
  const failures: string[] = [];
  await phase.run({
    print: (line = '') => lines.push(line),
    fail: (message: string) => failures.push(message),
  } as unknown as BenchContext);
  return { report: lines.join('\n'), failures };
}

it('is the phase npm run bench runs as parse, at the stated budget', () => {
  expect(PHASES).toContain(parseTime);
  expect(parseTime.name).toBe('parse');
  expect(parseTime.description).toContain(`fails over ${PARSE_CPU_BUDGET_MS} ms of CPU`);
});

it('reads the corpus from where the tests keep it', () => {
  expect(existsSync(CORPUS)).toBe(true);
});

it('reads every body of the corpus and names the three slowest', async () => {
  const { report } = await run(parseTime);
  expect(report).toMatch(/normal body: \d+\.\d\d ms \(\d+ bytes\), \d+\.\d\d ms at 256 KiB/);
  expect(report).toContain(`worst of ${ADVERSARIAL_BODIES.length} adversarial bodies: `);
  const worst = /adversarial bodies: (.*)$/m.exec(report)![1]!.split(', ');
  expect(worst).toHaveLength(3);
  const names = new Set(ADVERSARIAL_BODIES.map((b) => b.name));
  for (const entry of worst) expect(names.has(entry.replace(/ \d+\.\d\d ms$/, ''))).toBe(true);
}, 300_000);

it('fails, naming every body, when each is over the budget', async () => {
  // One reading of each after the warm-up: any time is over a budget below zero.
  const { report, failures } = await run(parsePhase(-1, 1));
  expect(failures).toHaveLength(1);
  expect(failures[0]).toMatch(/^over the -1 ms CPU budget of one body: /);
  for (const { name } of ADVERSARIAL_BODIES) expect(failures[0]).toContain(`${name} `);
  expect(report).toContain(failures[0]);
  expect(report).not.toContain('every body within');
}, 300_000);

describe('overBudget', () => {
  it('passes bodies at or under the budget', () => {
    expect(overBudget([])).toBeUndefined();
    expect(overBudget([{ name: 'a', cpuMs: PARSE_CPU_BUDGET_MS }])).toBeUndefined();
  });

  it('names every body over it, with its CPU time', () => {
    expect(
      overBudget([
        { name: 'zeros', cpuMs: 22_000 },
        { name: 'fine', cpuMs: 3 },
        { name: 'deep', cpuMs: PARSE_CPU_BUDGET_MS + 0.5 },
      ]),
    ).toBe(
      `over the ${PARSE_CPU_BUDGET_MS} ms CPU budget of one body: zeros 22000.00 ms of CPU, deep 250.50 ms of CPU`,
    );
  });
});
