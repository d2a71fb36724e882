/** `npm run load`: open-loop load against a base URL; see `lib/lab/load/`. */
import { runCommand } from '../lib/cli/args';
import { loadCommand } from '../lib/lab/load';

const stop = new AbortController();
// Ctrl-C stops scheduling; the requests in flight finish and the report is written.
process.once('SIGINT', () => stop.abort());

runCommand('npm run load', () =>
  loadCommand(process.argv.slice(2), {
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
    env: process.env,
    signal: stop.signal,
  }),
);
