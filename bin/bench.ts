/** `npm run bench`: parses the arguments and runs the phases of `lib/lab/bench/`. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BENCH_HELP, parseBenchArgs } from '../lib/lab/bench/args';
import { PHASES } from '../lib/lab/bench/phases';
import { runCli } from '../lib/cli/run';
import { lambdaNode } from '../lib/definitions/lambda-node';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

runCli('npm run bench', async (argv) => {
  const args = parseBenchArgs(argv);
  if (args.help) {
    process.stdout.write(BENCH_HELP);
    return 0;
  }
  // Some phases import() TypeScript (parse: the corpus in test/support/; request: each
  // operation's handler.ts), which Node's ESM loader reads only with tsx's ESM hooks. The
  // entries run under tsx/cjs alone (lib/cli/bin-entry.ts), so the bench registers the hooks
  // here, past --help, rather than every command paying for their loader thread.
  (await import('tsx/esm/api')).register();
  const node = lambdaNode();
  if (node.notice) console.error(node.notice);
  const dir = mkdtempSync(join(tmpdir(), 'plant-store-bench-'));
  const failures: string[] = [];
  try {
    console.log(
      `bench on ${process.version} (functions on Node ${node.major}); ${new Date().toISOString()}\n`,
    );
    for (const phase of PHASES.filter((candidate) => args.phases.includes(candidate.name))) {
      await phase.run({
        runs: args.runs,
        requests: args.requests,
        loadSeconds: args.loadSeconds,
        writeMeasurements: args.writeMeasurements,
        dir,
        lambdaNode: node,
        print: (line = '') => console.log(line),
        fail: (message) => failures.push(message),
      });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (failures.length > 0) throw new Error(failures.join('; '));
  return 0;
});
