/**
 * A function as Lambda runs it: a pool of sandboxes. Each takes one invocation at a time and
 * stays warm (module scope kept) for the next; an invocation that finds none free gets a new
 * one, cold, as Lambda binds it to a new execution environment and runs its init. The start
 * waits its turn at the run's `StartGate` (a burst's starts would otherwise starve each other
 * on a small machine), and the sandbox is that invocation's: another that finishes meanwhile
 * serves the next arrival, never a waiting one. Past the function's concurrency limit the
 * invocation is throttled. A sandbox left idle for `idleSeconds` exits, as Lambda reclaims
 * idle environments (the next invocation starts cold). New code (watch mode) replaces the
 * sandboxes: idle ones stop at once, busy ones after their invocation, and the next invocation
 * starts one cold on the new code, as after a Lambda deploy. With `inspectPort` the pool runs one
 * sandbox under the inspector, started ahead for a debugger to attach, and invocations queue
 * for it.
 */
import { randomUUID } from 'node:crypto';
import { FUNCTION_NODE_OPTIONS } from '../../definitions/bundling';
import { lambdaHeapFlags, START_WRAPPER } from '../../definitions/lambda-node';
import { batchScheduler, InvocationError, Sandbox, type SandboxOptions } from './sandbox';
import type { PoolOptions } from './pool-options';
import { reportLine } from './report';
import { StartGate } from './start-gate';

export type { PoolOptions };

/** An invocation waiting for the one sandbox under the inspector. */
interface Waiter {
  resolve(sandbox: Sandbox): void;
  reject(error: InvocationError): void;
}

/** The sandboxes of one function. */
export class SandboxPool {
  private readonly sandboxes = new Set<Sandbox>();
  private bundle: string;
  private generation = 0;
  private stopping = false;
  private readonly gate: StartGate;
  /** Under the inspector: invocations waiting for its sandbox, first come first served. */
  private readonly waiters: Waiter[] = [];
  /** Starts asked of the gate and not granted yet (each for an invocation, but under the inspector). */
  private requested = 0;
  /** `warm` (under the inspector), waiting for a sandbox to finish or exit. */
  private freed: (() => void)[] = [];

  constructor(private readonly options: PoolOptions) {
    this.bundle = options.bundle;
    this.gate = options.startGate ?? new StartGate();
  }

  /** Sandboxes alive now (starting, busy or idle). */
  get size(): number {
    return this.sandboxes.size;
  }

  /**
   * Starts one sandbox ahead of the first invocation, for a debugger to attach before any
   * request (`npm start` does this under the inspector only: Lambda starts none ahead).
   */
  async warm(): Promise<void> {
    const current = () =>
      [...this.sandboxes].find((s) => s.alive && s.options.generation === this.generation);
    // Under the inspector the old sandbox must be gone first: the new one takes its port.
    while (!current() && this.sandboxes.size >= this.limit && !this.stopping) {
      await new Promise<void>((resolve) => this.freed.push(resolve));
    }
    if (this.stopping) return;
    let sandbox = current();
    if (!sandbox) {
      const release = await this.gate.enter();
      sandbox = current();
      if (sandbox || this.stopping || this.sandboxes.size >= this.limit) release();
      else {
        try {
          sandbox = this.spawn(release);
        } catch {
          return; // refused: logged, and the first invocation tries again
        }
      }
    }
    await sandbox?.ready.catch(() => undefined);
  }

  /**
   * Invokes the handler with `event` on a sandbox: the warmest idle one, or one started for it;
   * `onStart` is called when the sandbox receives the event, from which the timeout counts.
   * Rejects with `InvocationError` if it gives no result, or at once when the function's
   * invocations in flight (running or waiting) reach its concurrency: throttled.
   */
  async invoke(event: unknown, onStart?: () => void): Promise<unknown> {
    if (this.stopping) throw new InvocationError('the function is stopping', 'crash');
    const requestId = randomUUID();
    const sandbox = await this.acquire(requestId);
    try {
      // A sandbox started for this invocation: its init fails the invocation, as on Lambda.
      await sandbox.ready;
    } catch (error) {
      this.free(sandbox);
      throw error;
    }
    clearTimeout(sandbox.idleTimer);
    // The first invocation a sandbox serves reports its init, even if it was started ahead.
    const cold = sandbox.invocations++ === 0;
    const timeoutMs = this.options.timeoutSeconds * 1000;
    let timer: NodeJS.Timeout | undefined;
    const started = performance.now();
    try {
      const timedOut = new Promise<never>((_, reject) => {
        // A debugger may hold the invocation at a breakpoint for as long as it likes.
        if (this.inspecting) return;
        timer = setTimeout(() => {
          this.options.log(
            `${requestId} Task timed out after ${this.options.timeoutSeconds.toFixed(2)} seconds`,
          );
          sandbox.kill();
          // Gone now, not when its exit is seen: it no longer counts against the limit.
          this.sandboxes.delete(sandbox);
          reject(new InvocationError('function timed out', 'timeout'));
        }, timeoutMs);
      });
      onStart?.();
      sandbox.serving = requestId;
      this.options.observer?.started(requestId, event);
      const invocation = sandbox.invoke(event, requestId, Date.now() + timeoutMs);
      const outcome = await Promise.race([invocation, timedOut]);
      const initMs = cold ? sandbox.initMs : undefined;
      this.options.log(reportLine(requestId, this.options.memorySize, outcome, initMs));
      this.options.observer?.ended(requestId, {
        measured: outcome,
        initMs,
        cold,
        result: outcome.result,
      });
      return outcome.result;
    } catch (error) {
      const measured = (error instanceof InvocationError ? error.measured : undefined) ?? {
        durationMs: performance.now() - started,
        maxMemoryMb: 0,
      };
      const initMs = cold ? sandbox.initMs : undefined;
      const failure = error instanceof InvocationError ? error.kind : 'error';
      this.options.log(reportLine(requestId, this.options.memorySize, measured, initMs, failure));
      this.options.observer?.ended(requestId, { measured, initMs, cold, failure });
      throw error instanceof InvocationError ? error : new InvocationError(String(error), 'error');
    } finally {
      clearTimeout(timer);
      sandbox.serving = undefined;
      this.free(sandbox);
    }
  }

  /**
   * Serves new invocations with a new build (at `bundle`, which may be the same path rewritten);
   * sandboxes running the old build stop when idle: requests in flight finish on the old code.
   */
  async swap(bundle: string): Promise<void> {
    this.bundle = bundle;
    this.generation++;
    for (const sandbox of this.sandboxes) {
      if (
        !sandbox.busy &&
        sandbox.state !== 'starting' &&
        sandbox.options.generation !== this.generation
      )
        void sandbox.stop();
    }
    if (this.inspecting) await this.warm();
  }

  /** Stops every sandbox (the gateway has finished its requests by then). */
  async stop(): Promise<void> {
    this.stopping = true;
    this.dispatch();
    await Promise.all([...this.sandboxes].map((sandbox) => sandbox.stop()));
  }

  /** An invocation is done with `sandbox`: it idles for the next, or retires. */
  private free(sandbox: Sandbox): void {
    sandbox.busy = false;
    sandbox.idleSince = performance.now();
    // Old code (a rebuild happened meanwhile) or a pool shutting down: retire the sandbox. One
    // already gone (a timeout, a crash, a failed init) has nothing to keep.
    if (sandbox.alive) {
      if (sandbox.options.generation !== this.generation || this.stopping) void sandbox.stop();
      else this.armIdle(sandbox);
    }
    this.dispatch();
  }

  /**
   * A sandbox for one invocation: the warmest idle one, else a new one started for it alone (it
   * may still be starting: the invocation waits for its init). Under the inspector there is one
   * sandbox, and the invocation queues for it.
   */
  private acquire(requestId: string): Promise<Sandbox> {
    const idle = this.waiters.length === 0 ? this.mostRecentlyIdle() : undefined;
    if (idle) {
      idle.busy = true;
      return Promise.resolve(idle);
    }
    if (this.inspecting) {
      return new Promise<Sandbox>((resolve, reject) => {
        this.waiters.push({ resolve, reject });
        this.dispatch();
      });
    }
    let inFlight = this.requested;
    for (const s of this.sandboxes) if (s.busy) inFlight++;
    if (inFlight >= this.options.concurrency) {
      this.options.log(
        `throttled ${requestId}: ${this.options.concurrency} invocations are in flight (PLANT_STORE_CONCURRENCY)`,
      );
      return Promise.reject(new InvocationError('Rate Exceeded.', 'throttled'));
    }
    return this.startFor();
  }

  /** Starts a sandbox bound to one invocation, once the gate lets it: busy from its birth. */
  private async startFor(): Promise<Sandbox> {
    this.requested++;
    const release = await this.enterGate();
    this.requested--;
    if (this.stopping) {
      release();
      throw new InvocationError('the function is stopping', 'crash');
    }
    return this.spawn(release, true);
  }

  /**
   * A slot of the gate, granted after the I/O already read: starting a process holds the event
   * loop for a while, and requests that have arrived are admitted (and throttled) first.
   */
  private enterGate(): Promise<() => void> {
    return this.gate
      .enter()
      .then((release) => new Promise<() => void>((resolve) => setImmediate(resolve, release)));
  }

  /**
   * Under the inspector, hands its sandbox to the next waiting invocation, and starts it when
   * there is none; when stopping, fails the waiting invocations.
   */
  private dispatch(): void {
    for (const resolve of this.freed.splice(0)) resolve();
    if (this.stopping) {
      for (const waiter of this.waiters.splice(0)) {
        waiter.reject(new InvocationError('the function is stopping', 'crash'));
      }
      return;
    }
    for (let idle = this.mostRecentlyIdle(); idle && this.waiters.length > 0;) {
      idle.busy = true;
      this.waiters.shift()!.resolve(idle);
      idle = this.mostRecentlyIdle();
    }
    while (
      this.waiters.length > this.starting + this.requested &&
      this.sandboxes.size + this.requested < this.limit
    ) {
      this.requested++;
      void this.enterGate().then((release) => {
        this.requested--;
        const wanted =
          !this.stopping && this.waiters.length > this.starting && this.sandboxes.size < this.limit;
        try {
          if (wanted) this.spawn(release);
          else release();
        } catch (error) {
          this.waiters.shift()?.reject(error as InvocationError);
        }
        this.dispatch();
      });
    }
  }

  /** Sandboxes of the current build still importing their bundle. */
  private get starting(): number {
    let count = 0;
    for (const s of this.sandboxes) {
      if (s.alive && s.state === 'starting' && s.options.generation === this.generation) count++;
    }
    return count;
  }

  /**
   * The idle sandbox of the current build that finished last: traffic below the peak keeps
   * landing on the same few warm sandboxes (their JIT-compiled code and caches hot) instead of
   * spreading over every sandbox the peak started; the others just wait, as on Lambda.
   */
  private mostRecentlyIdle(): Sandbox | undefined {
    let chosen: Sandbox | undefined;
    for (const s of this.sandboxes) {
      if (s.busy || !s.alive || s.state !== 'ready' || s.options.generation !== this.generation)
        continue;
      if (!chosen || s.idleSince > chosen.idleSince) chosen = s;
    }
    return chosen;
  }

  /** Sandboxes that may run at once: one under the inspector. */
  private get limit(): number {
    return this.inspecting ? 1 : this.options.concurrency;
  }

  private get inspecting(): boolean {
    return this.options.inspectPort !== undefined;
  }

  /** Stops `sandbox` once it has been idle for `idleSeconds` (never while inspecting). */
  private armIdle(sandbox: Sandbox): void {
    const { idleSeconds } = this.options;
    if (idleSeconds === undefined || this.inspecting) return;
    clearTimeout(sandbox.idleTimer);
    sandbox.idleTimer = setTimeout(() => {
      if (sandbox.busy || !sandbox.alive) return;
      this.options.log(
        `SHUTDOWN sandbox ${sandbox.pid}: idle for ${idleSeconds} s (PLANT_STORE_SANDBOX_IDLE_SECONDS)`,
      );
      void sandbox.stop();
    }, idleSeconds * 1000);
    sandbox.idleTimer.unref();
  }

  /**
   * Starts a sandbox holding a slot of the gate, given back once it is ready or gone; `bound`:
   * for an invocation, busy from its birth.
   */
  private spawn(release: () => void, bound = false): Sandbox {
    let sandbox: Sandbox;
    const options = this.sandboxOptions(release, (line) => {
      this.options.log(line);
      if (sandbox.serving !== undefined) this.options.observer?.line(sandbox.serving, line);
    });
    try {
      sandbox = new Sandbox(options);
    } catch (error) {
      // The system refused the process outright (Node throws for ENOTDIR, E2BIG…): the slot goes
      // back, and the invocation it was for fails as one whose sandbox died.
      release();
      const message = (error as Error | undefined)?.message ?? String(error);
      this.options.log(`a sandbox could not be started: ${message}`);
      throw new InvocationError(`sandbox could not start: ${message}`, 'crash');
    }
    sandbox.busy = bound;
    this.sandboxes.add(sandbox);
    sandbox.ready.then(
      () => {
        release();
        // Started for an invocation: it is that invocation's, which retires it if need be.
        if (sandbox.busy) return;
        sandbox.idleSince = performance.now();
        if (sandbox.options.generation !== this.generation || this.stopping) void sandbox.stop();
        else this.armIdle(sandbox);
        this.dispatch();
      },
      (error: InvocationError) => {
        release();
        // As on Lambda, a failed init fails the invocation waiting for it (one started for an
        // invocation fails it through `invoke`).
        if (!sandbox.busy) this.waiters.shift()?.reject(error);
      },
    );
    // As Lambda's INIT_START, plus what tells sandboxes apart locally: the process id.
    this.options.log(
      `INIT_START sandbox ${sandbox.pid} (${this.sandboxes.size} of at most ${this.limit})`,
    );
    return sandbox;
  }

  /** How to start a sandbox of the current build that logs through `log` and `release`s its slot. */
  private sandboxOptions(release: () => void, log: (line: string) => void): SandboxOptions {
    return {
      bundle: this.bundle,
      generation: this.generation,
      environment: {
        ...this.options.environment,
        ...this.options.credentials?.(),
        AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(this.options.memorySize),
        AWS_LAMBDA_FUNCTION_TIMEOUT: String(this.options.timeoutSeconds),
      },
      nodePath: this.options.nodePath,
      scheduler: batchScheduler(),
      // Lambda's own heap limits for the memory setting: a leak fails here as it would there,
      // and garbage is collected as often (a young generation of a tenth, not V8's default).
      // Lambda's runtime also passes `--expose-gc`, which each function's start wrapper drops
      // (lib/definitions/lambda-node.ts): a sandbox starts without it too, and with the flags
      // the wrapper adds.
      execArgv: [
        ...START_WRAPPER.nodeFlags,
        ...lambdaHeapFlags(this.options.memorySize),
        // As the stack's NODE_OPTIONS (none: a deployed bundle maps its own stack traces).
        ...FUNCTION_NODE_OPTIONS,
        // The debugger's build has an inline map, which only Node's own source maps read.
        ...(this.inspecting
          ? ['--enable-source-maps', `--inspect=127.0.0.1:${this.options.inspectPort}`]
          : []),
      ],
      log,
      onExit: (gone, reason) => {
        release();
        clearTimeout(gone.idleTimer);
        this.sandboxes.delete(gone);
        this.dispatch();
        if (!this.stopping && reason !== 'exit code 0') {
          this.options.log(`sandbox ${gone.pid} exited (${reason}); the others keep serving`);
        }
      },
    };
  }
}
