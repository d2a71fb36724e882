/** `npm run capacity`: prints docs/capacity.md's tables, computed from `lib/generators/capacity/`. */
import { parseCommandLine } from '../lib/cli/args';
import { runCli } from '../lib/cli/run';
import { capacityTables } from '../lib/generators/capacity/tables';

const CAPACITY_HELP = `Usage: npm run capacity

Prints docs/capacity.md's tables, computed from the capacity model (lib/generators/capacity/).

Options:
  --help   this text
`;

runCli('npm run capacity', async (argv, io) => {
  if (parseCommandLine(argv, {}).help) {
    process.stdout.write(CAPACITY_HELP);
    return 0;
  }
  io.out(capacityTables());
  return 0;
});
