/** `npm run load`: open-loop load against a base URL; see `lib/lab/load/`. */
import { runCli } from '../lib/cli/run';
import { loadCommand } from '../lib/lab/load';

// Ctrl-C stops scheduling; the requests in flight finish, the report is written, exit code 130.
runCli('npm run load', loadCommand, { stoppable: true });
