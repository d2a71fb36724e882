/**
 * The bench's request-reading phase, run in process: it finds the adversarial corpus where the
 * tests keep it, reads every body, and fails on a body over its CPU budget. Nothing here asserts
 * a time: the figures are the bench's to print.
 */
import { existsSync } from 'node:fs';
import {
  CORPUS,
  PARSE_CPU_BUDGET_MS,
  overBudget,
  parseTime,
} from '../../../lib/lab/bench/parse-time';
import { PHASES } from '../../../lib/lab/bench/phases';
import type { BenchContext } from '../../../lib/lab/bench/phase';
import { ADVERSARIAL_BODIES } from '../../support/adversarial-bodies';

it('is a phase of npm run bench, named parse', () => {
  expect(PHASES).toContain(parseTime);
  expect(parseTime.name).toBe('parse');
});

it('reads the corpus from where the tests keep it', () => {
  expect(existsSync(CORPUS)).toBe(true);
});

it('runs over every body of the corpus and gives its verdict', async () => {
  const lines: string[] = [];
  // The verdict depends on the machine's speed, so either one is taken here: its figures and
  // its budget are the bench's business, this checks the phase's working parts.
  const verdict = await parseTime
    .run({ print: (line = '') => lines.push(line) } as unknown as BenchContext)
    .then(
      () => lines.at(-1)!,
      (error: Error) => error.message,
    );
  const report = lines.join('\n');
  expect(report).toMatch(/normal body: \d+\.\d\d ms \(\d+ bytes\), \d+\.\d\d ms at 256 KiB/);
  expect(report).toContain(`worst of ${ADVERSARIAL_BODIES.length} adversarial bodies: `);
  // The three worst, named from the corpus.
  const worst = /adversarial bodies: (.*)$/m.exec(report)![1]!.split(', ');
  expect(worst).toHaveLength(3);
  const names = new Set(ADVERSARIAL_BODIES.map((b) => b.name));
  for (const entry of worst) expect(names.has(entry.replace(/ \d+\.\d\d ms$/, ''))).toBe(true);
  expect(verdict).toMatch(
    new RegExp(
      `^(  every body within the ${PARSE_CPU_BUDGET_MS} ms CPU budget of one body\n|over the ${PARSE_CPU_BUDGET_MS} ms CPU budget of one body: )`,
    ),
  );
}, 60_000);

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
