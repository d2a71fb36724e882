/**
 * Measuring helpers shared by the bench phases: means and medians, fresh processes, alternating
 * pairs, and recording a phase's figures.
 */
import { spawn } from 'node:child_process';
import { relative } from 'node:path';
import { PROJECT_ROOT } from '../../definitions/bundling';
import { findExecutable } from '../../cli/executable';
import { writeMeasurement, type MeasurementPart, type Measurements } from '../measurements';
import type { BenchContext } from './phase';

/** The mean of a sample. */
export function mean(xs: readonly number[]): number {
  return xs.reduce((sum, x) => sum + x, 0) / xs.length;
}

/** The median of a sample. */
export function median(xs: readonly number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** The `p`-th percentile (0–100) of a sample, nearest rank. */
export function percentile(xs: readonly number[], p: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[
    Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))
  ]!;
}

/**
 * The environment of every measured child: nothing inherited but PATH, so that this machine's
 * `NODE_EXTRA_CA_CERTS` (which Lambda does not set, and which costs ~35 ms per start) and any
 * NODE_OPTIONS stay out of the figures.
 */
export function childEnvironment(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    AWS_REGION: 'eu-west-1',
    AWS_ACCESS_KEY_ID: 'bench',
    AWS_SECRET_ACCESS_KEY: 'bench',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    ...extra,
  };
}

/** One fresh process: wall-clock time from spawn to exit, and the CPU time it used. */
export interface ProcessTime {
  readonly wallMs: number;
  /** User + system CPU time of the child (all its threads), immune to other processes' load. */
  readonly cpuMs: number;
}

// Prepended to every measured script alike: reports the child's CPU time on fd 3 at exit.
const REPORT_CPU =
  "import { writeSync as __writeSync } from 'node:fs';" +
  'process.on("exit", () => { const u = process.resourceUsage(); ' +
  '__writeSync(3, String((u.userCPUTime + u.systemCPUTime) / 1000)); });\n';

/** How a measured `node` is started: its own flags, and a wrapper that is given the command. */
export interface NodeStart {
  /** Node's flags, before the script. */
  readonly flags?: readonly string[];
  /** An executable run with `node` and its arguments, as Lambda runs a start wrapper. */
  readonly wrapper?: string;
}

/**
 * Runs an ES module `script` in a fresh `node` (it must exit 0). Spawned asynchronously: an
 * engine in this process must go on answering the child.
 */
export function freshProcess(
  node: string,
  script: string,
  env: Record<string, string>,
  args: readonly string[] = [],
  { flags = [], wrapper }: NodeStart = {},
): Promise<ProcessTime> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const nodeArgs = [...flags, '--input-type=module', '-e', REPORT_CPU + script, ...args];
    const [file, argv] = wrapper ? [wrapper, [node, ...nodeArgs]] : [node, nodeArgs];
    const child = spawn(file, argv, {
      env,
      stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let cpu = '';
    child.stderr!.on(
      'data',
      (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2000)),
    );
    child.stdio[3]!.on('data', (chunk: Buffer) => (cpu += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => {
      const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
      if (code === 0) resolve({ wallMs, cpuMs: Number(cpu) });
      else reject(new Error(`a measured process exited with ${code}: ${stderr.slice(-600)}`));
    });
  });
}

/** Medians over alternating pairs: the subject, the baseline, their difference and ratio. */
export interface PairFigures {
  readonly subjectMs: number;
  readonly baselineMs: number;
  /** Median of the per-pair differences. */
  readonly extraMs: number;
  /** Median of the per-pair ratios. */
  readonly ratio: number;
}

function pairFigures(s: readonly number[], b: readonly number[]): PairFigures {
  return {
    subjectMs: median(s),
    baselineMs: median(b),
    extraMs: median(s.map((x, i) => x - b[i]!)),
    ratio: median(s.map((x, i) => x / b[i]!)),
  };
}

/**
 * Runs `subject` and `baseline` alternately `runs` times (after one unmeasured warm-up each, for
 * the file cache) so that drifting load on the machine hits both arms alike; figures for wall
 * time and for CPU time.
 */
export async function alternatingPairs(
  runs: number,
  subject: (run: number) => Promise<ProcessTime>,
  baseline: (run: number) => Promise<ProcessTime>,
): Promise<{ wall: PairFigures; cpu: PairFigures }> {
  await subject(-1);
  await baseline(-1);
  const s: ProcessTime[] = [];
  const b: ProcessTime[] = [];
  for (let run = 0; run < runs; run++) {
    s.push(await subject(run));
    b.push(await baseline(run));
  }
  return {
    wall: pairFigures(
      s.map((x) => x.wallMs),
      b.map((x) => x.wallMs),
    ),
    cpu: pairFigures(
      s.map((x) => x.cpuMs),
      b.map((x) => x.cpuMs),
    ),
  };
}

/** `12.3 ms`. */
export const ms = (value: number): string => `${value.toFixed(1)} ms`;

/** A difference in ms with its sign: `+1.2 ms`, `-0.3 ms`. */
export const signedMs = (value: number): string => `${value >= 0 ? '+' : ''}${ms(value)}`;

/**
 * The machine's own `node`: the first on PATH outside any `node_modules` (`npm run` puts the
 * project's Node 24 package, which Lambda's Node comes from, ahead of it).
 */
export function machineNode(): string | undefined {
  return findExecutable('node', undefined, (dir) => dir.includes('node_modules'));
}

/**
 * Under `--write-measurements`, rewrites `part` with what `figures` makes and says so; when some
 * of a load's requests (`failed`) were not answered 200, records nothing and fails the run instead.
 */
export function recordFigures<P extends MeasurementPart>(
  { writeMeasurements, print, fail }: Pick<BenchContext, 'writeMeasurements' | 'print' | 'fail'>,
  part: P,
  figures: () => Measurements[P],
  failed = 0,
): void {
  if (!writeMeasurements) return;
  if (failed > 0) {
    fail(`${part}: ${failed} requests were not answered 200; nothing recorded`);
    return;
  }
  print(`  wrote ${relative(PROJECT_ROOT, writeMeasurement(part, figures()))}\n`);
}
