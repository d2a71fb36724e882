/** `npm run state -- <command>`: see `lib/operator/state/cli.ts`. */
import { runCli } from '../lib/cli/run';
import { runStateCli } from '../lib/operator/state/cli';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
runCli('state', runStateCli);
