/** `npm run load`: open-loop load against a base URL; see `lib/lab/load/`. */
import { runCli } from '../lib/cli/run';
import { loadCommand } from '../lib/lab/load';

// Ctrl-C stops scheduling; the requests in flight finish and the report is written.
runCli('npm run load', loadCommand, { stoppable: true });
