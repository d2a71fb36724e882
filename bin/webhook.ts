/** `npm run webhook -- <command>`: see `lib/operator/webhook/cli.ts`. */
import { runCli } from '../lib/cli/run';
import { runWebhookCli } from '../lib/operator/webhook/cli';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
// `listen` serves until SIGINT or SIGTERM, then closes its port and exits 0; the other commands
// (replay, redrive, add --aws's wait …) end on a signal as any process does.
runCli('webhook', runWebhookCli, {
  stoppable: (argv) => argv.find((arg) => !arg.startsWith('-')) === 'listen',
});
