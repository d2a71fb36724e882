// Tests run on this machine's Node 20; the functions run on Lambda's Node 22 or newer.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

// Powertools writes log and metric lines to stdout itself, past jest's `silent`; keep test
// output readable by dropping them unless `--silent=false` is asked for. Tests that read them
// capture them (test/support/output.ts).
const QUIET = Symbol.for('plant-store.quiet-output');
for (const stream of [process.stdout, process.stderr] as (NodeJS.WriteStream & {
  [QUIET]?: boolean;
})[]) {
  if (stream[QUIET] || process.argv.includes('--silent=false')) continue;
  stream[QUIET] = true;
  const write = stream.write.bind(stream);
  stream.write = ((chunk: string | Uint8Array, ...rest: never[]) =>
    /^\{"(?:level|_aws)":/.test(String(chunk))
      ? true
      : write(chunk, ...rest)) as typeof stream.write;
}
