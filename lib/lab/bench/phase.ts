/**
 * What a bench phase is given and what it is. A new phase is one file under `lib/lab/bench/` that
 * exports a `BenchPhase`, plus one entry in `lib/lab/bench/phases.ts`; `--phases` and `--help` pick
 * it up from there. Timed children should get `childEnvironment()` from `./measure` (no
 * `NODE_EXTRA_CA_CERTS`) and run on `context.lambdaNode` when they stand for a function.
 */
import type { LambdaNode } from '../../definitions/lambda-node';
import type { MeasurementPart } from '../measurements';

/** Settings and shared facts every phase reads. */
export interface BenchContext {
  /** Alternating pairs of fresh processes per cold-start figure. */
  readonly runs: number;
  /** Requests sampled by the per-request phases. */
  readonly requests: number;
  /** Seconds of the load phase. */
  readonly loadSeconds: number;
  /** A scratch directory, removed after the run. */
  readonly dir: string;
  /** The Node the functions run on (Lambda's major when installed). */
  readonly lambdaNode: LambdaNode;
  /** The phases that measure the capacity model's inputs record them (../measurements.ts). */
  readonly writeMeasurements: boolean;
  /** Prints one line of the report. */
  readonly print: (line?: string) => void;
  /**
   * Records a figure over its budget: the bench goes on with its other phases, then exits 1
   * naming every one (`npm run bench -- --phases parse` in CI).
   */
  readonly fail: (message: string) => void;
}

/** One part of the bench. */
export interface BenchPhase {
  /** Short name, for `--phases`. */
  readonly name: string;
  /** One line for `--help`. */
  readonly description: string;
  /** The part of `measurements/bench.json` it rewrites under `--write-measurements`, if any. */
  readonly records?: MeasurementPart;
  run(context: BenchContext): Promise<void>;
}
