/** `npm run verify -- --url <ApiUrl>`, token in PLANT_STORE_TOKEN: see `lib/operator/verify/cli.ts`. */
import { runCli } from '../lib/cli/run';
import { runVerifyCli } from '../lib/operator/verify/cli';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
runCli('verify', runVerifyCli, { stoppable: true });
