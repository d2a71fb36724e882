/** `npm run webhook -- <command>`: see `lib/operator/webhook/cli.ts`. */
import { runWebhookCli } from '../lib/operator/webhook/cli';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
void runWebhookCli(process.argv.slice(2), {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  env: process.env,
  // `on`, not `once`: Ctrl-C reaches this process from the terminal and again from npm, which
  // forwards it; a second SIGINT must not meet Node's default (death by signal, not exit 0).
  stop: new Promise<void>((resolve) => {
    process.on('SIGINT', () => resolve()).on('SIGTERM', () => resolve());
  }),
}).then((code) => {
  process.exitCode = code;
});
