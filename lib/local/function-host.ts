/**
 * Runs one built function in a child process of its own, as Lambda runs it in a sandbox of its
 * own: separate module state and environment, a cold start on first use, a timeout, and a fresh
 * process after a crash or a timeout.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { join } from 'node:path';

/** A function invocation that did not produce a result. */
export class InvocationError extends Error {
  constructor(
    message: string,
    readonly kind: 'error' | 'timeout' | 'crash',
  ) {
    super(message);
  }
}

/** How to run one function. */
export interface FunctionHostOptions {
  readonly name: string;
  /** Absolute path of the built `.mjs` bundle. */
  readonly bundle: string;
  /** The function's whole environment (nothing is inherited but PATH). */
  readonly environment: Record<string, string>;
  readonly timeoutSeconds: number;
  /** Node options of the sandbox process (Lambda's heap limits). @default - none */
  readonly execArgv?: readonly string[];
  /** Receives every line the function prints. */
  readonly log: (line: string) => void;
}

interface Pending {
  child: ChildProcess;
  resolve(result: unknown): void;
  reject(error: InvocationError): void;
  timer: NodeJS.Timeout;
}

const WORKER = join(__dirname, 'function-worker.mjs');

/** A function that starts on first invocation and restarts after a crash or timeout. */
export class FunctionHost {
  private child: ChildProcess | undefined;
  private ready: Promise<void> | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private stopping = false;

  constructor(private readonly options: FunctionHostOptions) {}

  /** Starts the process now (a cold start ahead of the first request). */
  start(): Promise<void> {
    this.ready ??= this.spawn();
    return this.ready;
  }

  /** Invokes the handler with `event`; rejects with `InvocationError` if it gives no result. */
  async invoke(event: unknown): Promise<unknown> {
    await this.start();
    const child = this.child!;
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.options.log(`timed out after ${this.options.timeoutSeconds} s; restarting`);
        this.restart(child, new InvocationError('function timed out', 'timeout'));
      }, this.options.timeoutSeconds * 1000);
      this.pending.set(id, { child, resolve, reject, timer });
      child.send({ id, event });
    });
  }

  /** Stops the process once its pending invocations are settled. */
  async stop(): Promise<void> {
    this.stopping = true;
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.disconnect();
    const kill = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(kill);
  }

  private spawn(): Promise<void> {
    const child = fork(WORKER, [], {
      env: {
        PATH: process.env.PATH ?? '',
        ...this.options.environment,
        PLANT_STORE_BUNDLE: this.options.bundle,
      },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      // A plain ES module: none of the parent's loader flags (tsx), as on Lambda.
      execArgv: [...(this.options.execArgv ?? [])],
    });
    this.child = child;
    for (const stream of [child.stdout!, child.stderr!]) {
      createInterface({ input: stream }).on('line', (line) => this.options.log(line));
    }
    child.on(
      'message',
      (message: { type: string; id?: number; result?: unknown; message?: string }) => {
        const pending = message.id === undefined ? undefined : this.pending.get(message.id);
        if (!pending) return;
        this.pending.delete(message.id!);
        clearTimeout(pending.timer);
        if (message.type === 'result') pending.resolve(message.result);
        else pending.reject(new InvocationError(message.message ?? 'function error', 'error'));
      },
    );
    child.on('exit', (code, signal) => {
      this.forget(child);
      if (!this.stopping) this.options.log(`process exited (${signal ?? code})`);
      this.failAll(child, new InvocationError('function process exited', 'crash'));
    });
    return new Promise((resolve, reject) => {
      child.once('message', (message: { type: string; message?: string }) =>
        message.type === 'ready'
          ? resolve()
          : reject(new InvocationError(message.message ?? 'init failed', 'crash')),
      );
      child.once('exit', () => reject(new InvocationError('function failed to start', 'crash')));
    });
  }

  private restart(child: ChildProcess, error: InvocationError): void {
    this.failAll(child, error);
    this.forget(child);
    child.kill('SIGKILL');
  }

  /** The next invocation starts a new process if `child` is the current one. */
  private forget(child: ChildProcess): void {
    if (this.child !== child) return;
    this.child = undefined;
    this.ready = undefined;
  }

  /** Rejects every invocation still waiting on `child`. */
  private failAll(child: ChildProcess, error: InvocationError): void {
    for (const [id, pending] of this.pending) {
      if (pending.child !== child) continue;
      clearTimeout(pending.timer);
      pending.reject(error);
      this.pending.delete(id);
    }
  }
}
