/** `npm run bench` arguments: parsed, validated, with one-line errors and a help text. */
import { parseArgs } from 'node:util';
import { PHASES } from './phases';

/** What `npm run bench -- --help` prints. */
export const BENCH_HELP = `Usage: npm run bench [-- options]

Measures the functions and the local runtime; figures and method in docs/performance.md.
Timed children run with NODE_EXTRA_CA_CERTS unset, functions on Lambda's Node when installed.

Options:
  --runs N           alternating pairs of fresh processes per cold-start figure (default 30)
  --requests N       requests sampled by the per-request phases (default 300)
  --load-seconds N   seconds of the load phase (default 20)
  --phases a,b       run only these phases (default: all, in this order)
  -h, --help         this text

Phases:
${PHASES.map((phase) => `  ${phase.name.padEnd(17)}  ${phase.description}`).join('\n')}`;

/** Validated settings. */
export interface BenchArgs {
  readonly help: boolean;
  readonly runs: number;
  readonly requests: number;
  readonly loadSeconds: number;
  readonly phases: readonly string[];
}

/** A usage mistake: the bench prints the message alone and exits 2. */
export class UsageError extends Error {}

function positiveInteger(option: string, value: string): number {
  if (!/^[1-9]\d{0,6}$/.test(value)) {
    throw new UsageError(`--${option} must be a positive integer, got "${value}"`);
  }
  return Number(value);
}

/** Parses `argv` (without node and the script), or throws `UsageError`. */
export function parseBenchArgs(argv: readonly string[]): BenchArgs {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        runs: { type: 'string', default: '30' },
        requests: { type: 'string', default: '300' },
        'load-seconds': { type: 'string', default: '20' },
        phases: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError(`${(error as Error).message.split('\n')[0]} (see --help)`);
  }
  const known = PHASES.map((phase) => phase.name);
  const phases = values.phases === undefined ? known : values.phases.split(',').filter(Boolean);
  const unknown = phases.filter((phase) => !known.includes(phase));
  if (unknown.length || !phases.length) {
    throw new UsageError(`--phases takes some of ${known.join(', ')}; got "${values.phases}"`);
  }
  return {
    help: values.help,
    runs: positiveInteger('runs', values.runs),
    requests: positiveInteger('requests', values.requests),
    loadSeconds: positiveInteger('load-seconds', values['load-seconds']),
    phases,
  };
}
