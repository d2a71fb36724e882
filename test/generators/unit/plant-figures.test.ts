/**
 * The size and unit figures of docs/security.md and docs/performance.md are the ones
 * `plantFigures()` computes from the schema's limits: a field added, or a limit changed, fails
 * here until the docs show the new numbers (and the prices that follow from them).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  format,
  plantFigures,
  STORAGE_OVERHEAD_BYTES,
  WRITE_UNIT_BYTES,
} from '../../../lib/generators/plant-figures';

const f = plantFigures();
const B = format(f.itemBytes);
const PB = format(f.pageBytes);
/** Decimal kilobytes, as the docs count an answer's size. */
const kB = (bytes: number) => Math.round(bytes / 1000);

/** What each doc must say, each snippet as written there (whitespace and line breaks aside). */
const EXPECTED: Record<string, string[]> = {
  'docs/security.md': [
    ...f.attributes.map(
      (a) => `| \`${a.attribute}\` | ${a.nameBytes} | ${a.rule} | ${format(a.bytes)} |`,
    ),
    `| **item** | | | **${B}** |`,
    `${B} bytes is ${(f.itemBytes / WRITE_UNIT_BYTES).toFixed(1)} KB: **${f.writeUnits} WRU** to write (⌈${B} / 1,024⌉), **${f.readUnits} RRU** to read strongly consistent (⌈${B} / 4,096⌉), ${f.writeUnits} WRU to delete.`,
    `largest create (an item of ${B} bytes, ~20 ms, ${f.writeUnits} WRU)`,
    `and ${f.writeUnits} × $0.625`,
    `× (${B} + ${STORAGE_OVERHEAD_BYTES}) bytes`,
    `at most ${f.writeUnits} WRU for a plant within the limits`,
    `${f.pagePlants} × ${B} = ${PB} bytes, ⌈${PB} / 4,096⌉ = **${f.pageReadUnits} RRU**`,
    `a \`GetItem\` of one is ${f.readUnits} RRU`,
    `about ${kB(f.pageAnswerBytes)} KB of JSON when the text is 4-byte characters`,
    `at most about ${kB(f.pageAnswerEscapedBytes)} KB when it is control characters`,
    `× ${f.pageReadUnits} RRU × $0.125`,
  ],
  'docs/performance.md': [
    `bound an item at ${B} bytes`,
    `| creates (${B}-byte item) |`,
    `(${f.writeUnits} WRU) | — |`,
    `(${f.readUnits} RRU) |`,
    `(⌈${PB} / 4,096⌉ = ${f.pageReadUnits} RRU)`,
    `reads ${f.pageReadUnits} RRU and answers ~${kB(f.pageAnswerBytes)} KB`,
    `makes the answer up to ~${kB(f.pageAnswerEscapedBytes)} KB`,
    `the read units stay at ${f.pageReadUnits}`,
    `× (${B} + ${STORAGE_OVERHEAD_BYTES} bytes of per-item overhead)`,
  ],
};

/** A doc's text with every run of whitespace (line breaks and table padding included) as one space. */
const flat = (text: string) => text.replace(/\s+/g, ' ');

it('computes the largest item from the limits: the attributes sum to it', () => {
  expect(f.attributes.reduce((sum, a) => sum + a.nameBytes + a.valueBytes, 0)).toBe(f.itemBytes);
  expect(f.writeUnits).toBe(Math.ceil(f.itemBytes / 1024));
  expect(f.pageReadUnits).toBe(Math.ceil((f.pagePlants * f.itemBytes) / 4096));
});

describe.each(Object.entries(EXPECTED))('%s shows the computed figures', (file, snippets) => {
  const text = flat(readFileSync(join(__dirname, '../../..', file), 'utf8'));
  it.each(snippets.map((snippet) => [flat(snippet)]))('%s', (snippet) => {
    expect(text.includes(snippet) ? snippet : `not in ${file}: ${snippet}`).toBe(snippet);
  });
});
