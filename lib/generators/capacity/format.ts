/** How docs/capacity.md shows figures: numbers, dollars, shares and Markdown tables. */
import { LEVELS } from './inputs';

/** A number with thousands separators and `digits` decimals. */
export const n = (value: number, digits = 0) =>
  value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
/** Dollars to the cent. */
export const usd = (value: number) => (value < 0.005 && value > 0 ? '< $0.01' : `$${n(value, 2)}`);
/** A share as a percentage (one decimal under 10 %). */
export const pct = (value: number) => `${n(value * 100, value < 0.1 ? 1 : 0)} %`;

/** A Markdown table. */
export function table(head: readonly string[], rows: readonly (readonly string[])[]): string {
  return [
    `| ${head.join(' | ')} |`,
    `| ${head.map(() => '---').join(' | ')} |`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ].join('\n');
}

/** The head of a table with a column per level. */
export const levelHead = (unit = 'creates/s') => [
  '',
  ...LEVELS.map((rate) => `${n(rate)} ${unit}`),
];
