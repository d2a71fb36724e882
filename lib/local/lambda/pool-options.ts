/** How a pool runs one function (lib/local/lambda/pool.ts). */
import type { InvocationObserver } from './report';
import type { StartGate } from './start-gate';

/** How to run one function. */
export interface PoolOptions {
  readonly name: string;
  /** Absolute path of the built `.mjs` bundle. */
  readonly bundle: string;
  /** The function's whole environment (nothing is inherited but PATH). */
  readonly environment: Record<string, string>;
  readonly timeoutSeconds: number;
  /** The function's memory setting in MB: its heap limit and the REPORT line's Memory Size. */
  readonly memorySize: number;
  /** Sandboxes that may run at once; one more invocation is throttled. */
  readonly concurrency: number;
  /** The Node executable sandboxes run on. */
  readonly nodePath: string;
  /** Receives every line the function prints and one REPORT line per invocation. */
  readonly log: (line: string) => void;
  /** Seconds a sandbox may stay idle before it exits. @default - sandboxes never idle out */
  readonly idleSeconds?: number;
  /**
   * Debugging: one sandbox at a time, with the inspector on this port and source-mapped stack
   * traces; invocations wait for it instead of being throttled, and neither the timeout nor
   * the idle time applies (a breakpoint may hold an invocation, the debugger stays attached).
   * @default - no inspector
   */
  readonly inspectPort?: number;
  /**
   * Limits sandbox starts across every function of the run. @default - a gate of this pool's
   * own, as many starts at once as the machine has cores
   */
  readonly startGate?: StartGate;
  /**
   * Issues each new sandbox's AWS credentials (added to its environment), as Lambda gives each
   * execution environment a session of the function's role of its own.
   * @default - the environment's own, if any
   */
  readonly credentials?: () => Record<string, string>;
  /**
   * Told of each invocation: when a sandbox receives it, each line it prints, and its end (the
   * local console records them). @default - nobody
   */
  readonly observer?: InvocationObserver;
}
