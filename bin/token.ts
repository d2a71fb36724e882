/** `npm run token -- <command>`: see `lib/operator/token-cli.ts`. */
import { runCli } from '../lib/cli/run';
import { runTokenCli } from '../lib/operator/token-cli';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
runCli('token', runTokenCli);
