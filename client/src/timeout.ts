/**
 * The time limit of one attempt: from sending the request to the last byte of the answer
 * (connect, headers and body alike, since the attempt's signal aborts the body's stream too).
 */

/**
 * 35 s. The API's integration limit is 30 s: by then the gateway has answered (503 when the
 * function ran out of time), so an attempt still silent 5 s later has lost its connection, and
 * waiting longer only holds the caller. A shorter default would give up on answers the gateway
 * is still going to deliver, and retry work that is still running.
 */
export const DEFAULT_TIMEOUT_MS = 35_000;

/** The timeout, checked: milliseconds, a positive integer a timer can hold. */
export function checkTimeout(ms: number): number {
  if (!Number.isSafeInteger(ms) || ms <= 0 || ms > 2_147_483_647) {
    throw new TypeError(`timeout must be a positive integer of milliseconds, not ${String(ms)}`);
  }
  return ms;
}

/** One attempt's signal: it aborts when the caller's does, or when `ms` have passed. */
export interface Deadline {
  readonly signal: AbortSignal;
  /** Whether the attempt ran out of time (rather than being aborted by the caller). */
  readonly timedOut: () => boolean;
  /** Stops the clock; call it once the answer is read. */
  readonly clear: () => void;
}

/** Starts the clock of one attempt. */
export function startDeadline(ms: number, caller?: AbortSignal): Deadline {
  const controller = new AbortController();
  let timedOut = false;
  const onAbort = () => controller.abort(caller!.reason);
  caller?.addEventListener('abort', onAbort, { once: true });
  // Not AbortSignal.timeout: its clock cannot be stopped, and it would count while a caller
  // keeps the signal; this one is per attempt, and cleared as soon as the answer is read.
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new DOMException(`the attempt took longer than ${ms} ms`, 'TimeoutError'));
  }, ms);
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    clear: () => {
      clearTimeout(timer);
      caller?.removeEventListener('abort', onAbort);
    },
  };
}
