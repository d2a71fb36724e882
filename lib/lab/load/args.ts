/**
 * `npm run load` arguments: the target, the arrival rate (constant or stepped), the mix of
 * operations, where the report goes, and the ceiling that keeps a mistyped command from loading a
 * deployed stage.
 */
import { integerOption, parseCommandLine, UsageError } from '../../cli/args';
import { API } from '../../definitions/api';
import { DEFAULT_PORT } from '../../npm-start/find';
import { CREATE, OPERATIONS, REFUSED, type Operation } from './operations';

/**
 * Against a URL that is not this machine, a run asks for at most this much unless `--yes`: a
 * dev stage's own throttle is 10 a second (burst 20), so the ceiling meets its 429s and stops
 * short of a bill (a minute at 20 a second is 1,200 requests, under a cent).
 */
export const NON_LOCAL_CEILING = { rate: 20, seconds: 60 } as const;

/** What `npm run load -- --help` prints. */
export const LOAD_HELP = `Usage: PLANT_STORE_TOKEN=<token> npm run load -- [--url] <base url> [options]

Open-loop load: requests are sent at the times a constant or stepped arrival rate schedules,
whether or not earlier ones have answered, and each latency is measured from its scheduled time,
so a stall shows in every percentile it should. Prints progress each second, then a summary, and
writes a JSON report and an SVG picture (latency over time, percentile curve) beside it.

Options:
  [--url] <url>       the API's base URL: a stack's ApiUrl output or npm start's
                      (default http://127.0.0.1:$PORT, PORT defaulting to ${DEFAULT_PORT})
  --rate R[,R2,...]   arrivals per second; several values make steps, run in order (default 50)
  --duration S        seconds per step (default 10)
  --warmup S          seconds at the first rate before measuring, not recorded (default 0)
  --mix op=w,...      weights of ${OPERATIONS.join(', ')}
                      (default ${CREATE ?? OPERATIONS[0]}=1); reads, changes and deletes use ids that exist:
                      plants this run created first, then those it creates${REFUSED.map((why) => `\n                      not sent: ${why}`).join('')}
  --connections N     sockets open at once (default 512); a request beyond them waits for one,
                      and that wait counts in its latency
  --timeout MS        give up on a request after this long (default ${API.integrationTimeoutSeconds * 1000}, the gateway's
                      integration timeout)
  --out PATH          report file without extension: PATH.json and PATH.svg (default load-report)
  --yes               allow more than ${NON_LOCAL_CEILING.rate} requests a second or ${NON_LOCAL_CEILING.seconds} seconds against a URL
                      that is not this machine
  -h, --help          this text

  PLANT_STORE_TOKEN   the bearer token (never an argument: npm echoes the command line); without
                      it, npm start's dev token (the file dev-token in PLANT_STORE_DATA_DIR,
                      default .plant-store) when the URL is the one the running npm start
                      recorded there (ports.json); else it is required

--out's folder is checked before the run; the summary is printed before the files are written.

Exit code: 0 when the run finished (whatever the answers), 130 when Ctrl-C or SIGTERM stopped it
(the summary and the files cover the time it ran), 1 when it could not run, 2 for a usage
mistake. Figures and method: docs/performance.md; a deployed stage: docs/capacity.md.
`;

/** One step of the arrival rate. */
export interface Step {
  /** Arrivals per second. */
  readonly rate: number;
  readonly seconds: number;
}

/** Validated settings of a run. */
export interface LoadArgs {
  readonly help: boolean;
  readonly url: URL;
  /** True when the URL names this machine (the ceiling does not apply). */
  readonly local: boolean;
  readonly steps: readonly Step[];
  readonly warmupSeconds: number;
  /** Weight of each operation (0 for one left out). */
  readonly mix: Readonly<Record<Operation, number>>;
  readonly connections: number;
  readonly timeoutMs: number;
  /** Report path without extension. */
  readonly out: string;
}

/** True for a host name that is this machine (the ceiling does not apply). */
export function isLocalHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

function parseRates(raw: string): number[] {
  const rates = raw.split(',').map((part) => part.trim());
  if (!rates.every((rate) => /^\d+(\.\d+)?$/.test(rate) && Number(rate) > 0)) {
    throw new UsageError(`--rate takes positive numbers separated by commas, not ${raw}`);
  }
  return rates.map(Number).map((rate) => {
    if (rate > 100_000) throw new UsageError(`--rate is at most 100000 a second, not ${rate}`);
    return rate;
  });
}

/** `create-plant=3,get-plant=1` as weights; an operation not named weighs 0. */
export function parseMix(raw: string): Record<Operation, number> {
  const mix = Object.fromEntries(OPERATIONS.map((op) => [op, 0])) as Record<Operation, number>;
  for (const part of raw.split(',')) {
    const match = /^\s*([\w-]+)\s*=\s*(\d+)\s*$/.exec(part);
    if (!match || !(OPERATIONS as readonly string[]).includes(match[1]!)) {
      const refused = REFUSED.find((why) => match && why.startsWith(`${match[1]}:`));
      throw new UsageError(
        refused
          ? `--mix: ${refused}`
          : `--mix takes ${OPERATIONS.map((op) => `${op}=<weight>`).join(',')} (any of them), not ${raw}`,
      );
    }
    mix[match[1] as Operation] += Number(match[2]);
  }
  if (!Object.values(mix).some((weight) => weight > 0)) {
    throw new UsageError(`--mix needs one operation with a weight above 0, not ${raw}`);
  }
  return mix;
}

/** Parses `argv` (without node and the script) and the environment, or throws `UsageError`. */
export function parseLoadArgs(argv: readonly string[], env: NodeJS.ProcessEnv): LoadArgs {
  const { values, help, positionals } = parseCommandLine(
    argv,
    {
      url: { type: 'string' },
      rate: { type: 'string' },
      duration: { type: 'string' },
      warmup: { type: 'string' },
      mix: { type: 'string' },
      connections: { type: 'string' },
      timeout: { type: 'string' },
      out: { type: 'string' },
      yes: { type: 'boolean' },
    },
    true,
  );
  // The base URL may also come alone, without --url (`npm run load -- http://127.0.0.1:3000`).
  if (positionals.length > 1 || (positionals.length && values.url !== undefined)) {
    throw new UsageError(`unexpected argument ${positionals.at(-1)}`);
  }
  const rawUrl =
    (values.url as string | undefined) ??
    positionals[0] ??
    `http://127.0.0.1:${env.PORT || DEFAULT_PORT}`;
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new UsageError(`--url must be an http or https URL, not ${rawUrl}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`--url must be an http or https URL, not ${rawUrl}`);
  }
  const seconds = integerOption(values.duration, 'duration', 10, 1, 86_400);
  const steps = parseRates(String(values.rate ?? '50')).map((rate) => ({ rate, seconds }));
  const warmupSeconds = integerOption(values.warmup, 'warmup', 0, 0, 3_600);
  const local = isLocalHost(url.hostname);
  if (!local && values.yes !== true) {
    const top = Math.max(...steps.map((step) => step.rate));
    const total = warmupSeconds + steps.reduce((sum, step) => sum + step.seconds, 0);
    if (top > NON_LOCAL_CEILING.rate || total > NON_LOCAL_CEILING.seconds) {
      throw new UsageError(
        `${url.host} is not this machine: without --yes a run is at most ${NON_LOCAL_CEILING.rate} requests a second for ${NON_LOCAL_CEILING.seconds} s, and this one asks ${top} a second for ${total} s`,
      );
    }
  }
  const out = String(values.out ?? 'load-report');
  if (out === '' || out.endsWith('/')) throw new UsageError(`--out must name a file, not "${out}"`);
  return {
    help,
    url,
    local,
    steps,
    warmupSeconds,
    mix:
      values.mix === undefined
        ? parseMix(`${CREATE ?? OPERATIONS[0]}=1`)
        : parseMix(String(values.mix)),
    connections: integerOption(values.connections, 'connections', 512, 1, 65_536),
    timeoutMs: integerOption(
      values.timeout,
      'timeout',
      API.integrationTimeoutSeconds * 1000,
      1,
      3_600_000,
    ),
    out: out.replace(/\.(json|svg)$/, ''),
  };
}
