/** `npm run smoke -- --url <ApiUrl>`, token in PLANT_STORE_TOKEN: see `lib/operator/smoke.ts`. */
import { runCli } from '../lib/cli/run';
import { runSmokeCli } from '../lib/operator/smoke';

// Ctrl-C or SIGTERM stops the checks; the plant is still deleted, then it exits 1 (as verify).
runCli('smoke', runSmokeCli, { stoppable: true });
