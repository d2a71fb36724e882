/** What `npm run capacity -- --help` prints. */
export const CAPACITY_HELP = `Usage: npm run capacity

Prints docs/capacity.md's tables, computed from the capacity model (lib/generators/capacity/).

Options:
  --help   this text
`;
