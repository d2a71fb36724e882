/**
 * `npm run load`: parses the command line, finds the token and checks that the report can be
 * written, runs the open loop with a line of progress a second on stderr, prints the summary and
 * writes `<out>.json` and `<out>.svg`.
 */
import { accessSync, constants, statSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { UsageError } from '../../cli/args';
import type { CliIo } from '../../cli/run';
import { commandToken } from '../../npm-start/find';
import { LOAD_HELP, parseLoadArgs, type LoadArgs } from './args';
import { buildReport, formatReport } from './report';
import { httpSender, runLoad, type Progress } from './run';
import { renderSvg } from './svg';

/** The exit code of a run stopped by Ctrl-C or SIGTERM: a shell's for SIGINT (128 + 2). */
export const INTERRUPTED_EXIT_CODE = 130;

/**
 * The token: `PLANT_STORE_TOKEN`, else the dev token of the running npm start that recorded this
 * URL (`devTokenFor`): never the dev token for another server, even on this machine.
 */
export function loadToken(args: LoadArgs, env: NodeJS.ProcessEnv): string {
  return commandToken(undefined, args.url.href, true, env);
}

/** Refuses, before the run, a report that could not be written after it. */
export function checkOut(out: string): void {
  const folder = dirname(resolve(out));
  try {
    if (!statSync(folder).isDirectory()) throw new Error('not a folder');
    accessSync(folder, constants.W_OK);
  } catch {
    throw new UsageError(`--out ${out}: cannot write in ${folder}`);
  }
  for (const file of [`${out}.json`, `${out}.svg`]) {
    try {
      if (statSync(file).isDirectory()) throw new Error('a folder');
      accessSync(file, constants.W_OK);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw new UsageError(`--out ${out}: cannot write ${resolve(file)}`);
    }
  }
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
  checkOut(args.out);
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
    // The summary first: a report that cannot be written loses no figure.
    io.out(formatReport(report));
    const json = `${args.out}.json`;
    const svg = `${args.out}.svg`;
    writeFileSync(json, `${JSON.stringify(report, null, 2)}\n`);
    writeFileSync(svg, renderSvg(report));
    io.out(`  report ${resolve(json)}\n  picture ${resolve(svg)}`);
    return run.interrupted ? INTERRUPTED_EXIT_CODE : 0;
  } finally {
    sender.close();
  }
}
