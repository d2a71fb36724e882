/**
 * `npm run load`: parses the command line, finds the token, runs the open loop with a line of
 * progress a second on stderr, prints the summary and writes `<out>.json` and `<out>.svg`.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { CliIo } from '../../cli/run';
import { readDevToken } from '../../npm-start/find';
import { LOAD_HELP, parseLoadArgs, type LoadArgs } from './args';
import { buildReport, formatReport } from './report';
import { httpSender, runLoad, type Progress } from './run';
import { renderSvg } from './svg';

/** Where the output goes (the tests capture it). */

/**
 * The token: `PLANT_STORE_TOKEN`, else (against this machine) npm start's dev token, else none —
 * a server that needs one then answers 401, which the report counts.
 */
export function loadToken(args: LoadArgs, env: NodeJS.ProcessEnv): string | undefined {
  if (env.PLANT_STORE_TOKEN) return env.PLANT_STORE_TOKEN;
  return args.local ? readDevToken(env) : undefined;
}

const progressLine = (p: Progress) =>
  `${String(p.elapsedS).padStart(5)} s  ${p.rate}/s  sent ${p.sent}  answered ${p.answered}  in flight ${p.inFlight}  last second p99 ${p.lastSecondP99Ms.toFixed(1)} ms  429 ${p.throttled}  5xx ${p.serverErrors}  no answer ${p.failed}`;

/** Runs the command; returns the exit code (usage mistakes are thrown as `UsageError`). */
export async function loadCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const args = parseLoadArgs(argv, io.env);
  if (args.help) {
    io.out(LOAD_HELP);
    return 0;
  }
  const token = loadToken(args, io.env);
  if (!token)
    io.err(
      'load: no token (PLANT_STORE_TOKEN is not set, and no dev token was found): requests go without Authorization',
    );
  const steps = args.steps.map((step) => `${step.rate}/s for ${step.seconds} s`).join(', then ');
  io.err(
    `load: ${args.url.href}: ${args.warmupSeconds ? `${args.warmupSeconds} s of warm-up, then ` : ''}${steps}`,
  );
  const sender = httpSender(args, token);
  try {
    const run = await runLoad(args, sender.send, {
      onProgress: (progress) => io.err(progressLine(progress)),
      signal: io.signal,
    });
    const report = buildReport(args, run);
    const json = `${args.out}.json`;
    const svg = `${args.out}.svg`;
    writeFileSync(json, `${JSON.stringify(report, null, 2)}\n`);
    writeFileSync(svg, renderSvg(report));
    io.out(formatReport(report));
    io.out(`  report ${resolve(json)}\n  picture ${resolve(svg)}`);
    return 0;
  } finally {
    sender.close();
  }
}
