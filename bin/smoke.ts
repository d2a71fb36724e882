/** `npm run smoke -- --url <ApiUrl>`, token in PLANT_STORE_TOKEN: see `lib/operator/smoke.ts`. */
import { runCli } from '../lib/cli/run';
import { runSmokeCli } from '../lib/operator/smoke';

runCli('smoke', runSmokeCli);
