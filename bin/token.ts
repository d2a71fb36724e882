/** `npm run token -- <command>`: see `lib/operator/token-cli.ts`. */
import { runTokenCli } from '../lib/operator/token-cli';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
void runTokenCli(process.argv.slice(2), {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  env: process.env,
}).then((code) => {
  process.exitCode = code;
});
