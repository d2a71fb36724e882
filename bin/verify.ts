/** `npm run verify -- --url <ApiUrl>`, token in PLANT_STORE_TOKEN: see `lib/operator/verify/cli.ts`. */
import { runCli } from '../lib/cli/run';
import { runVerifyCli } from '../lib/operator/verify/cli';

runCli('verify', runVerifyCli, { stoppable: true });
