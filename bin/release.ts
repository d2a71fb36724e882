/** `npm run release -- <command>`: see `lib/release/release-cli.ts`. */
import { runReleaseCli } from '../lib/release/release-cli';

void runReleaseCli(process.argv.slice(2), {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
}).then((code) => {
  process.exitCode = code;
});
