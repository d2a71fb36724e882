/** Lambda's REPORT line, as a local invocation writes it to the function's log. */

/** What an invocation measured: its duration and the most memory it used. */
export interface Measured {
  readonly durationMs: number;
  readonly maxMemoryMb: number;
}

/**
 * One invocation's REPORT line: duration, billed duration, memory; the init on a cold start, the
 * failure if any, and a note when it used more memory than its setting.
 */
export function reportLine(
  requestId: string,
  memorySize: number,
  measured: Measured,
  initMs: number | undefined,
  failure?: string,
): string {
  const fields = [
    `REPORT RequestId: ${requestId}`,
    `Duration: ${measured.durationMs.toFixed(2)} ms`,
    `Billed Duration: ${Math.ceil(measured.durationMs)} ms`,
    `Memory Size: ${memorySize} MB`,
    `Max Memory Used: ${measured.maxMemoryMb} MB`,
  ];
  if (initMs !== undefined) fields.push(`Init Duration: ${initMs.toFixed(2)} ms`);
  if (failure) fields.push(`Status: ${failure}`);
  if (measured.maxMemoryMb > memorySize) fields.push(`(over the ${memorySize} MB memory setting)`);
  return fields.join('\t');
}

/** How an invocation ended, as its REPORT line says it. */
export interface InvocationEnd {
  readonly measured: Measured;
  /** The Init Duration of a cold start; `undefined` when warm. */
  readonly initMs: number | undefined;
  readonly cold: boolean;
  /** What the handler answered, when it did. */
  readonly result?: unknown;
  /** `error`, `timeout`, `crash` or `throttled`, when it gave no result. */
  readonly failure?: string;
}

/** Watches a pool's invocations (`PoolOptions.observer`), by their Lambda request id. */
export interface InvocationObserver {
  started(requestId: string, event: unknown): void;
  /** A line the sandbox printed while serving `requestId`. */
  line(requestId: string, line: string): void;
  ended(requestId: string, end: InvocationEnd): void;
}
