/**
 * The report of a load run: the JSON written to `<out>.json` (settings, per step, per operation,
 * the timeline and the percentile curves), the knee, and the summary printed at the end.
 */
import type { LoadArgs } from './args';
import type { Operation } from './operations';
import type { CurvePoint, GroupSummary, WindowSummary } from './record';
import type { RunResult } from './run';

/** One step's figures. */
export interface StepReport extends GroupSummary {
  /** Arrivals per second asked for. */
  readonly rate: number;
  /** The step's length asked for. */
  readonly seconds: number;
  /** Seconds its schedule ran: `seconds`, or less when the run was interrupted. */
  readonly elapsedSeconds: number;
  /** Requests the schedule asked for, and those not sent for want of an existing id. */
  readonly scheduled: number;
  readonly skipped: number;
  /** 2xx answers per second the step ran (0 when it never started). */
  readonly okPerSecond: number;
  readonly curve: CurvePoint[];
}

/** Where p99 turns. */
export interface Knee {
  /** The first step past the knee. */
  readonly rate: number;
  readonly reason: string;
}

/** What `<out>.json` holds. */
export interface LoadReport {
  readonly tool: 'npm run load';
  readonly url: string;
  readonly startedAt: string;
  readonly elapsedSeconds: number;
  readonly interrupted: boolean;
  readonly settings: {
    readonly steps: readonly { rate: number; seconds: number }[];
    readonly warmupSeconds: number;
    readonly mix: Readonly<Record<Operation, number>>;
    readonly connections: number;
    readonly timeoutMs: number;
  };
  /** How latency is measured, said once in the file that carries the figures. */
  readonly method: string;
  readonly seededPlants: number;
  readonly overall: GroupSummary & { readonly curve: CurvePoint[] };
  readonly steps: readonly StepReport[];
  readonly byOperation: Readonly<Record<Operation, GroupSummary>>;
  readonly timeline: { readonly windowMs: number; readonly windows: readonly WindowSummary[] };
  /** How late the generator itself sent requests; large values mean this machine was the limit. */
  readonly sendLagMs: { readonly p99: number; readonly max: number };
  readonly knee: Knee | null;
}

/** p99 more than this many times the first step's (and at least 1 ms more) is the knee. */
export const KNEE_FACTOR = 2;
/** A step whose answers are more than this share not 2xx is past the knee. */
export const KNEE_NOT_OK_SHARE = 0.01;

/**
 * The first step past the knee: its p99 over `KNEE_FACTOR` × the first step's, or more than 1 %
 * of its answers not 2xx, or fewer than 95 % of its scheduled requests answered 2xx.
 */
export function findKnee(steps: readonly StepReport[]): Knee | null {
  const base = steps[0]?.latencyMs.p99;
  if (base === undefined || steps.length < 2) return null;
  for (const step of steps.slice(1)) {
    const notOk = step.requests - step.classes.ok;
    if (step.latencyMs.p99 > Math.max(KNEE_FACTOR * base, base + 1)) {
      return {
        rate: step.rate,
        reason: `p99 ${step.latencyMs.p99.toFixed(1)} ms, over ${KNEE_FACTOR}× the ${steps[0]!.rate}/s step's ${base.toFixed(1)} ms`,
      };
    }
    if (notOk > KNEE_NOT_OK_SHARE * step.requests) {
      return { rate: step.rate, reason: `${notOk} of ${step.requests} answers not 2xx` };
    }
    if (step.okPerSecond < 0.95 * step.rate) {
      return {
        rate: step.rate,
        reason: `${step.okPerSecond.toFixed(1)} 2xx a second of ${step.rate} asked`,
      };
    }
  }
  return null;
}

/** Builds the report from a finished run. */
export function buildReport(args: LoadArgs, run: RunResult): LoadReport {
  const { recorder } = run;
  const steps = args.steps.map((step, index): StepReport => {
    const summary = recorder.step(index);
    // By the time it ran: an interrupted step's answers over its full length would understate.
    const ran = run.stepSeconds[index]!;
    return {
      rate: step.rate,
      seconds: step.seconds,
      elapsedSeconds: Math.round(ran * 10) / 10,
      scheduled: run.scheduled[index]!,
      skipped: run.skipped[index]!,
      ...summary,
      okPerSecond: ran > 0 ? Math.round((summary.classes.ok / ran) * 10) / 10 : 0,
      curve: recorder.stepCurve(index),
    };
  });
  return {
    tool: 'npm run load',
    url: args.url.href,
    startedAt: run.startedAt.toISOString(),
    elapsedSeconds: Math.round(run.elapsedS * 10) / 10,
    interrupted: run.interrupted,
    settings: {
      steps: args.steps,
      warmupSeconds: args.warmupSeconds,
      mix: args.mix,
      connections: args.connections,
      timeoutMs: args.timeoutMs,
    },
    method:
      'open loop: each request sent at its scheduled time (rate r: one every 1/r s) whatever the earlier ones did; latency from the scheduled time to the last byte of the answer (or the failure), so time spent waiting to be sent counts; HdrHistogram, 3 significant digits; every answer counted, whatever its status',
    seededPlants: run.seeded,
    overall: { ...recorder.overall.summary(), curve: recorder.overall.curve() },
    steps,
    byOperation: recorder.byOperation(),
    timeline: { windowMs: recorder.windowMs, windows: recorder.timeline() },
    sendLagMs: {
      p99: Math.round(run.sendLagMs.p99 * 1000) / 1000,
      max: Math.round(run.sendLagMs.max * 1000) / 1000,
    },
    // A step an interrupted run never reached has no figures to turn.
    knee: findKnee(steps.filter((step) => step.elapsedSeconds > 0)),
  };
}

const classLine = (s: GroupSummary) =>
  `2xx ${s.classes.ok}, 429 ${s.classes.throttled}, other 4xx ${s.classes.clientError}, 5xx ${s.classes.serverError}, no answer ${s.classes.failed}`;

/** The summary printed when the run ends. */
export function formatReport(report: LoadReport): string {
  const lines = [
    `${report.url} from ${report.startedAt}${report.interrupted ? ' (interrupted)' : ''}: latency from the scheduled time, ms`,
    '  rate/s  requests   2xx/s     p50     p90     p99   p99.9     max  answers',
  ];
  const row = (label: string, s: GroupSummary, okPerSecond: string) =>
    `  ${label.padStart(6)} ${String(s.requests).padStart(9)} ${okPerSecond.padStart(7)} ${[s.latencyMs.p50, s.latencyMs.p90, s.latencyMs.p99, s.latencyMs.p99_9, s.latencyMs.max].map((v) => v.toFixed(1).padStart(7)).join(' ')}  ${classLine(s)}`;
  for (const step of report.steps) {
    lines.push(row(String(step.rate), step, step.okPerSecond.toFixed(1)));
    if (step.elapsedSeconds < step.seconds) {
      lines.push(
        `         ran ${step.elapsedSeconds} s of ${step.seconds} s: 2xx/s over the time it ran`,
      );
    }
    if (step.skipped)
      lines.push(`         ${step.skipped} deletes not sent: no plant left to delete`);
  }
  if (report.steps.length > 1) lines.push(row('all', report.overall, ''));
  for (const [operation, s] of Object.entries(report.byOperation)) {
    lines.push(
      `  ${operation}: ${s.requests} requests, p50 ${s.latencyMs.p50.toFixed(1)} ms, p99 ${s.latencyMs.p99.toFixed(1)} ms; ${classLine(s)}`,
    );
  }
  lines.push(
    `  the generator sent late by p99 ${report.sendLagMs.p99.toFixed(1)} ms, max ${report.sendLagMs.max.toFixed(1)} ms (its own lag, included in the latencies)`,
  );
  if (report.steps.length > 1) {
    lines.push(
      report.knee
        ? `  knee at ${report.knee.rate}/s: ${report.knee.reason}`
        : '  no knee: p99 and answers held at every step',
    );
  }
  return lines.join('\n');
}
