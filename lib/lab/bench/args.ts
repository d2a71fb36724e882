/** `npm run bench` arguments: parsed and validated through `lib/cli/args.ts`, with a help text. */
import { integerOption, parseCommandLine, UsageError } from '../../cli/args';
import { PHASES } from './phases';

/** The phases `--write-measurements` makes record their figures, in English (`a, b and c`). */
const RECORDING = PHASES.filter((phase) => phase.records).map((phase) => phase.name);
const recording = `${RECORDING.slice(0, -1).join(', ')} and ${RECORDING.at(-1)}`;

/** What `npm run bench -- --help` prints. */
export const BENCH_HELP = `Usage: npm run bench [-- options]

Measures the functions and the local runtime; figures and method in docs/performance.md.
Timed children run with NODE_EXTRA_CA_CERTS unset, functions on Lambda's Node when installed.

Options:
  --runs N           alternating pairs of fresh processes per cold-start figure (default 30)
  --requests N       requests sampled by the per-request phases (default 300)
  --load-seconds N   seconds of the load phase (default 20)
  --phases a,b       run only these phases (default: all, in this order)
  --write-measurements
                     the ${recording} phases record
                     their figures in measurements/bench.json, which the generated
                     pages read
  -h, --help         this text

Phases:
${PHASES.map((phase) => `  ${phase.name.padEnd(17)}  ${phase.description}`).join('\n')}
`;

/** Validated settings. */
export interface BenchArgs {
  readonly help: boolean;
  readonly runs: number;
  readonly requests: number;
  readonly loadSeconds: number;
  readonly phases: readonly string[];
  readonly writeMeasurements: boolean;
}

/** Parses `argv` (without node and the script), or throws `UsageError`. */
export function parseBenchArgs(argv: readonly string[]): BenchArgs {
  const { values, help } = parseCommandLine(argv, {
    runs: { type: 'string' },
    requests: { type: 'string' },
    'load-seconds': { type: 'string' },
    phases: { type: 'string' },
    'write-measurements': { type: 'boolean' },
  });
  const known = PHASES.map((phase) => phase.name);
  const listed = values.phases === undefined ? known : String(values.phases).split(',');
  const phases = listed.filter(Boolean);
  const unknown = phases.filter((phase) => !known.includes(phase));
  if (unknown.length || !phases.length) {
    throw new UsageError(`--phases takes some of ${known.join(', ')}, not "${values.phases}"`);
  }
  return {
    help,
    runs: integerOption(values.runs, 'runs', 30, 1, 10_000),
    requests: integerOption(values.requests, 'requests', 300, 1, 1_000_000),
    loadSeconds: integerOption(values['load-seconds'], 'load-seconds', 20, 1, 3_600),
    phases,
    writeMeasurements: values['write-measurements'] === true,
  };
}
