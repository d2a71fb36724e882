/**
 * What a load run records: every request's latency from its scheduled time in high-dynamic-range
 * histograms (HdrHistogram's JavaScript port: 3 significant digits from 1 µs to an hour, the
 * shape wrk2 and Gil Tene's tools report), overall, per step, per operation and per window of
 * scheduled time, and every answer's status.
 */
import { build, type Histogram } from 'hdr-histogram-js';
import { OPERATIONS, type Operation } from './operations';

/** How one request ended. */
export interface Outcome {
  readonly operation: Operation;
  /** Index of the step it was scheduled in. */
  readonly step: number;
  /** Scheduled time, ms from the start of the measured run. */
  readonly scheduledMs: number;
  /** From the scheduled time to the answer's last byte (or the failure), ms. */
  readonly latencyMs: number;
  /** The HTTP status, or undefined when no answer came. */
  readonly status?: number;
  /** Why no answer came: `timeout` or the socket error's code. */
  readonly error?: string;
}

/** Answers by kind: 429s and 5xx apart from other failures. */
export interface StatusClasses {
  ok: number;
  throttled: number;
  clientError: number;
  serverError: number;
  /** No answer at all: a timeout, a refused or reset connection. */
  failed: number;
  /** 1xx and 3xx. */
  other: number;
}

/** The class of a status (undefined: no answer). */
export function classOf(status: number | undefined): keyof StatusClasses {
  if (status === undefined) return 'failed';
  if (status === 429) return 'throttled';
  if (status >= 200 && status < 300) return 'ok';
  if (status >= 500) return 'serverError';
  if (status >= 400) return 'clientError';
  return 'other';
}

/** Latency percentiles in ms. */
export interface Percentiles {
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly p99_9: number;
  readonly max: number;
  readonly mean: number;
}

/** One point of a percentile curve. */
export interface CurvePoint {
  readonly percentile: number;
  readonly ms: number;
}

/** The figures of a group of requests. */
export interface GroupSummary {
  readonly requests: number;
  readonly latencyMs: Percentiles;
  /** Count per HTTP status, or per failure (`timeout`, `ECONNRESET`…). */
  readonly statuses: Record<string, number>;
  readonly classes: StatusClasses;
}

const newHistogram = (packed = false): Histogram =>
  build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: 3_600_000_000,
    numberOfSignificantValueDigits: 3,
    ...(packed ? { bitBucketSize: 'packed' as const } : {}),
  });

const ms = (us: number) => Math.round(us) / 1000;

/** One group's histogram and counts. */
class Group {
  readonly histogram: Histogram;
  readonly statuses: Record<string, number> = {};
  readonly classes: StatusClasses = {
    ok: 0,
    throttled: 0,
    clientError: 0,
    serverError: 0,
    failed: 0,
    other: 0,
  };

  constructor(packed = false) {
    this.histogram = newHistogram(packed);
  }

  add(outcome: Outcome): void {
    this.histogram.recordValue(Math.max(1, Math.round(outcome.latencyMs * 1000)));
    const key = outcome.status === undefined ? (outcome.error ?? 'error') : String(outcome.status);
    this.statuses[key] = (this.statuses[key] ?? 0) + 1;
    this.classes[classOf(outcome.status)]++;
  }

  percentiles(): Percentiles {
    const h = this.histogram;
    // HdrHistogram answers a bucket's highest equivalent value, which can pass the largest
    // value recorded by less than its precision (0.1 %): the maximum bounds every percentile.
    const at = (p: number) => ms(Math.min(h.getValueAtPercentile(p), h.maxValue));
    return {
      p50: at(50),
      p90: at(90),
      p99: at(99),
      p99_9: at(99.9),
      max: ms(h.maxValue),
      mean: ms(h.mean),
    };
  }

  summary(): GroupSummary {
    return {
      requests: this.histogram.totalCount,
      latencyMs: this.percentiles(),
      statuses: { ...this.statuses },
      classes: { ...this.classes },
    };
  }

  /**
   * The percentile curve: points at 1 − 10^(−k/10) (0, 20.6, 36.9, … 90, … 99, … 99.9 %) as far
   * as the sample reaches, and the maximum.
   */
  curve(): CurvePoint[] {
    const count = this.histogram.totalCount;
    const points: CurvePoint[] = [];
    for (let k = 0; count > 0 && 10 ** (k / 10) <= count; k++) {
      const percentile = 100 * (1 - 10 ** (-k / 10));
      const value = Math.min(
        this.histogram.getValueAtPercentile(percentile),
        this.histogram.maxValue,
      );
      points.push({ percentile, ms: ms(value) });
    }
    if (count > 0) points.push({ percentile: 100, ms: ms(this.histogram.maxValue) });
    return points;
  }
}

/** One window of the timeline (by scheduled time). */
export interface WindowSummary {
  /** Start of the window, s from the start of the run. */
  readonly atS: number;
  readonly requests: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  /** Answers that were not 2xx, and failures. */
  readonly notOk: number;
}

/** Records outcomes; `summaries()` and `curve()` give the report's figures. */
export class Recorder {
  readonly overall = new Group();
  private readonly steps: Group[];
  private readonly operations = new Map<Operation, Group>();
  private readonly windows = new Map<number, Group>();

  /** `windowMs`: the timeline's resolution. */
  constructor(
    stepCount: number,
    readonly windowMs: number,
  ) {
    this.steps = Array.from({ length: stepCount }, () => new Group());
  }

  record(outcome: Outcome): void {
    this.overall.add(outcome);
    this.steps[outcome.step]!.add(outcome);
    if (!this.operations.has(outcome.operation))
      this.operations.set(outcome.operation, new Group());
    this.operations.get(outcome.operation)!.add(outcome);
    const window = Math.floor(outcome.scheduledMs / this.windowMs);
    if (!this.windows.has(window)) this.windows.set(window, new Group(true));
    this.windows.get(window)!.add(outcome);
  }

  step(index: number): GroupSummary {
    return this.steps[index]!.summary();
  }

  stepCurve(index: number): CurvePoint[] {
    return this.steps[index]!.curve();
  }

  byOperation(): Record<Operation, GroupSummary> {
    return Object.fromEntries(
      OPERATIONS.filter((op) => this.operations.has(op)).map((op) => [
        op,
        this.operations.get(op)!.summary(),
      ]),
    );
  }

  timeline(): WindowSummary[] {
    return [...this.windows.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, group]) => {
        const { requests, latencyMs, classes } = group.summary();
        return {
          atS: (index * this.windowMs) / 1000,
          requests,
          p50Ms: latencyMs.p50,
          p99Ms: latencyMs.p99,
          maxMs: latencyMs.max,
          notOk: requests - classes.ok,
        };
      });
  }
}
