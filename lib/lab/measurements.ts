/**
 * The figures the capacity model and the performance page take from the bench, as data:
 * `measurements/bench.json`, which `npm run bench -- --write-measurements` rewrites (each phase
 * that records names its part: `BenchPhase.records`), each part with the machine, the Node and
 * the time it was measured on. The model (lib/generators/capacity/) reads it; the pages print
 * where it came from.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, arch } from 'node:os';
import { join } from 'node:path';
import * as v from 'valibot';
import { PROJECT_ROOT } from '../definitions/bundling';

/** Where the measurements are kept (committed). */
export const MEASUREMENTS_FILE = join(PROJECT_ROOT, 'measurements', 'bench.json');

/** Where and when a part was measured. */
const MeasuredOn = v.strictObject({
  /** The command that measured it. */
  command: v.string(),
  /** ISO 8601. */
  date: v.pipe(v.string(), v.isoTimestamp()),
  node: v.string(),
  cpus: v.pipe(v.number(), v.integer(), v.minValue(1)),
  cpuModel: v.string(),
  arch: v.string(),
});
export type MeasuredOn = v.InferOutput<typeof MeasuredOn>;

const Figure = v.pipe(v.number(), v.minValue(0));

/** One invocation of a function on the request path, warm, in process on the local engine. */
const RequestCost = v.strictObject({
  /** Median handler time, ms. */
  ms: Figure,
  /** Bytes the function writes to its log (its line and the EMF metrics). */
  bytesLogged: Figure,
  /** DynamoDB capacity units, as DynamoDB bills them. */
  units: Figure,
});

/** A cold start's extra over a baseline, alternated with it in one run: medians of per-pair differences. */
const ColdExtra = v.strictObject({
  /** Wall-clock time, ms. */
  ms: v.number(),
  /** CPU time of the process (all its threads), ms. */
  cpuMs: v.number(),
});

/** One side of the `offline` comparison: creates answered 200 a second, and the p99 latency. */
const LoadSide = v.strictObject({
  /** Mean over the runs, creates answered 200 a second. */
  rps: Figure,
  /** Mean over the runs of each run's p99 latency, ms. */
  p99Ms: Figure,
});

/** `npm start`'s CPU time a request at one number of connections: means over the runs, ms. */
const CpuAt = v.strictObject({
  /** Every sandbox together. */
  sandboxes: Figure,
  /** Each process role (`gateway/runtime`, `sandbox <function>`) that did work. */
  roles: v.record(v.string(), Figure),
});

const Measurements = v.strictObject({
  /** `--phases request`: each function on the request path, by its name in the registry. */
  request: v.strictObject({
    ...MeasuredOn.entries,
    functions: v.record(v.string(), RequestCost),
  }),
  /** `--phases fan-out`: the fan-out's CPU per SendMessageBatch of ten, ms. */
  fanOut: v.strictObject({ ...MeasuredOn.entries, cpuMsPerCall: Figure }),
  /**
   * `--phases cold`, on Lambda's Node: the floor (the SDK's client alone) over a bare handler, and
   * each function's import over the floor, each pair alternated in one run.
   */
  cold: v.strictObject({
    ...MeasuredOn.entries,
    floorOverBare: ColdExtra,
    functions: v.record(v.string(), ColdExtra),
  }),
  /**
   * `--phases cpu`: `npm start`'s CPU time a request by process role, at one connection and at the
   * load's, alternating in one run, the authorizer cache off. `node` is the runtime's and the
   * sandboxes' (npm start runs on the Node its functions do).
   */
  cpu: v.strictObject({
    ...MeasuredOn.entries,
    /** Creates a figure. */
    requests: v.pipe(v.number(), v.integer(), v.minValue(1)),
    /** Figures at each number of connections, alternating with the other's. */
    runs: v.pipe(v.number(), v.integer(), v.minValue(1)),
    /** The load's connections. */
    connections: v.pipe(v.number(), v.integer(), v.minValue(2)),
    /** Seconds of the load at `connections` before the first figure (the bench's warm-up). */
    warmUpSeconds: Figure,
    /** At one connection. */
    atOne: CpuAt,
    /** At `connections`. */
    atLoad: CpuAt,
  }),
  /**
   * `--phases offline`: `npm start` and serverless-offline on the same bundles and engine, under the
   * same load, alternating in one run, with the authorizer's decisions cached for `cacheTtlSeconds`
   * by npm start (serverless-offline caches none).
   */
  offline: v.strictObject({
    ...MeasuredOn.entries,
    serverlessOffline: v.string(),
    connections: v.pipe(v.number(), v.integer(), v.minValue(1)),
    seconds: Figure,
    runs: v.pipe(v.number(), v.integer(), v.minValue(1)),
    /** Seconds of the same load each side had before its first run (the bench's warm-up). */
    warmUpSeconds: Figure,
    cacheTtlSeconds: Figure,
    npmStart: LoadSide,
    offline: LoadSide,
  }),
});
export type Measurements = v.InferOutput<typeof Measurements>;
/** A part of the file, which one phase writes. */
export type MeasurementPart = keyof Measurements;

/** `value` checked against `schema`; throws naming the file, the dot path and what is wrong. */
function checkedBy<S extends v.GenericSchema>(
  schema: S,
  value: unknown,
  file: string,
  path = '',
): v.InferOutput<S> {
  const parsed = v.safeParse(schema, value);
  if (!parsed.success) {
    const issues = parsed.issues.map(
      (issue) => `${path}${v.getDotPath(issue) ?? '(root)'}: ${issue.message}`,
    );
    throw new Error(`${file}: ${issues.join('; ')}`);
  }
  return parsed.output;
}

/** The measurements, checked; throws naming the file and what is wrong. */
export function readMeasurements(file = MEASUREMENTS_FILE): Measurements {
  return checkedBy(Measurements, JSON.parse(readFileSync(file, 'utf8')), file);
}

/** The version of the Node at `nodePath` (`v24.1.0`). */
export function nodeVersion(nodePath: string): string {
  return nodePath === process.execPath
    ? process.version
    : execFileSync(nodePath, ['--version'], { encoding: 'utf8' }).trim();
}

/**
 * This machine now, for a part measured by `command` on the Node at `nodePath` (this process's
 * unless said).
 */
export function measuredHere(command: string, nodePath = process.execPath): MeasuredOn {
  const all = cpus();
  return {
    command,
    date: new Date().toISOString(),
    node: nodeVersion(nodePath),
    cpus: all.length,
    cpuModel: all[0]?.model.trim() ?? 'unknown',
    arch: arch(),
  };
}

/**
 * Rewrites one part of the file, checked; the others are kept as they are (a change to the schema
 * is recorded one phase at a time: the file as a whole is checked where it is read). Answers the
 * file.
 */
export function writeMeasurement<P extends MeasurementPart>(
  part: P,
  figures: Measurements[P],
  file = MEASUREMENTS_FILE,
): string {
  const written = checkedBy(Measurements.entries[part], figures, file, `${part}.`);
  const next: Record<string, unknown> = {
    ...(JSON.parse(readFileSync(file, 'utf8')) as object),
    [part]: written,
  };
  // In the schema's order of parts whatever the file's was (a part it does not know, last: it
  // stays until removed by hand, and reading the file refuses it meanwhile). Two spaces a
  // level, one member a line: the text Prettier leaves, as `npm run check` wants.
  const order = [...new Set([...Object.keys(Measurements.entries), ...Object.keys(next)])];
  const ordered = Object.fromEntries(
    order.filter((key) => key in next).map((key) => [key, next[key]]),
  );
  writeFileSync(file, `${JSON.stringify(ordered, null, 2)}\n`);
  return file;
}
