/** `npm run capacity`: prints every table of the capacity model (`lib/generators/capacity/`). */
import { parseCommandLine } from '../lib/cli/args';
import { runCli } from '../lib/cli/run';
import { CAPACITY_HELP } from '../lib/generators/capacity/help';
import { capacityTables } from '../lib/generators/capacity/tables';

runCli('npm run capacity', async (argv, io) => {
  if (parseCommandLine(argv, {}).help) {
    process.stdout.write(CAPACITY_HELP);
    return 0;
  }
  io.out(capacityTables());
  return 0;
});
