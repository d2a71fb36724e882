/** What `npm run capacity -- --help` prints. */
export const CAPACITY_HELP = `Usage: npm run capacity

Prints every table of the capacity model (lib/generators/capacity/), computed from AWS's
quotas and prices and the bench's figures (measurements/bench.json); docs/capacity.md shows
some of them, written by npm run generate.

Options:
  --help   this text
`;
