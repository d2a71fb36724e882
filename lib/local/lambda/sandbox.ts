/**
 * One sandbox: a child process on Lambda's Node that runs a function bundle, one invocation at a
 * time, keeping its module scope between invocations until it is stopped or dies.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

/** A function invocation that did not produce a result; the gateway answers 500 for each kind. */
export class InvocationError extends Error {
  constructor(
    message: string,
    readonly kind: 'error' | 'timeout' | 'crash' | 'throttled',
    /** What the sandbox measured, when the handler itself failed. */
    readonly measured?: { readonly durationMs: number; readonly maxMemoryMb: number },
  ) {
    super(message);
  }
}

/** How to start one sandbox. */
export interface SandboxOptions {
  /** Absolute path of the built `.mjs` bundle. */
  readonly bundle: string;
  /** Which build of the bundle (watch mode rewrites the same file). */
  readonly generation: number;
  /** The function's whole environment (nothing is inherited but PATH). */
  readonly environment: Record<string, string>;
  /** The Node executable (Lambda's, see `lib/definitions/lambda-node.ts`). */
  readonly nodePath: string;
  /** Node flags, e.g. the heap limit. */
  readonly execArgv: readonly string[];
  /** Receives every line the function prints. */
  readonly log: (line: string) => void;
  /** Called once when the process is gone, for whatever reason. */
  readonly onExit: (sandbox: Sandbox, reason: string) => void;
}

/** What one invocation measured. */
export interface InvocationResult {
  readonly result: unknown;
  readonly durationMs: number;
  readonly maxMemoryMb: number;
}

interface WorkerMessage {
  type: 'ready' | 'init-error' | 'result' | 'error';
  id?: number;
  result?: unknown;
  message?: string;
  durationMs?: number;
  maxRssKiB?: number;
}

const WORKER = join(__dirname, 'worker.mjs');

/**
 * What the worker prints on stdout and on stderr once an invocation has ended, before it answers
 * (`<mark><id>`): the answer is settled only after both marks have come, so every line the
 * invocation printed is logged before its REPORT, as on Lambda (the pipes and the IPC channel
 * are read in no fixed order). Never logged itself.
 */
export const END_MARK = '\u001fplant-store:end:';
/** How long an answer waits for the marks (a function that closed its stdout never sends one). */
const END_MARK_WAIT_MS = 1_000;

/** A sandbox process. `busy` is the pool's: one invocation at a time. */
export class Sandbox {
  busy = false;
  /** When its last invocation ended (`performance.now()`); the pool prefers the latest. */
  idleSince = 0;
  /** The pool's: stops the sandbox once it has been idle long enough. */
  idleTimer: NodeJS.Timeout | undefined;
  /** Invocations started here; the first one reports the Init Duration. */
  invocations = 0;
  /** Importing the bundle, serving, or gone before it could. */
  state: 'starting' | 'ready' | 'failed' = 'starting';
  /** Set once the bundle is imported: the Init Duration of the first invocation's report. */
  initMs: number | undefined;
  /** Resolves when the bundle is imported; rejects when the import fails or the process dies. */
  readonly ready: Promise<void>;
  private readonly child: ChildProcess;
  private current:
    | { id: number; resolve(r: InvocationResult): void; reject(e: InvocationError): void }
    | undefined;
  private nextId = 0;
  /** The last invocation whose end mark each stream (stdout, stderr) has delivered. */
  private readonly endsSeen = [-1, -1];
  /** An answer that came before its end marks, and the timer that stops waiting for them. */
  private answered: { message: WorkerMessage; timer: NodeJS.Timeout } | undefined;
  private exited = false;
  private killed = false;
  private stopped = false;

  constructor(readonly options: SandboxOptions) {
    const spawned = performance.now();
    this.child = fork(WORKER, [], {
      execPath: options.nodePath,
      // A plain ES module: none of the parent's loader flags (tsx), as on Lambda.
      execArgv: [...options.execArgv],
      env: {
        PATH: process.env.PATH ?? '',
        ...options.environment,
        PLANT_STORE_BUNDLE: options.bundle,
        PLANT_STORE_END_MARK: END_MARK,
      },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    [this.child.stdout!, this.child.stderr!].forEach((stream, index) => {
      createInterface({ input: stream }).on('line', (line) => {
        const mark = line.indexOf(END_MARK);
        if (mark < 0) return options.log(line);
        // A line the function left unfinished ends where the mark begins.
        if (mark > 0) options.log(line.slice(0, mark));
        this.endsSeen[index] = Number(line.slice(mark + END_MARK.length));
        this.settleWhenLogged();
      });
    });
    this.ready = new Promise<void>((resolve, reject) => {
      this.child.on('message', (message: WorkerMessage) => {
        if (message.type === 'ready') {
          this.initMs = performance.now() - spawned;
          this.state = 'ready';
          resolve();
        } else if (message.type === 'init-error') {
          if (this.state === 'starting') this.state = 'failed';
          reject(new InvocationError(`init failed: ${message.message}`, 'error'));
        } else this.answer(message);
      });
      this.child.once('exit', (code, signal) => {
        this.exited = true;
        const reason = signal ?? `exit code ${code}`;
        if (this.state === 'starting') this.state = 'failed';
        reject(new InvocationError(`sandbox process exited (${reason})`, 'crash'));
        // An answer that came before the process went stands, marks or not.
        this.settleWhenLogged(true);
        this.fail(new InvocationError(`sandbox process exited (${reason})`, 'crash'));
        options.onExit(this, reason);
      });
    });
    // A failed init is reported to the invocation that waits for it; no unhandled rejection.
    this.ready.catch(() => undefined);
  }

  /** False once the process is stopping, killed or gone: it takes no more invocations. */
  get alive(): boolean {
    return !this.exited && !this.killed && !this.stopped;
  }

  /** The process id, for tests and the log. */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Runs one invocation; the caller has made sure the sandbox is not busy. */
  async invoke(event: unknown, requestId: string, deadline: number): Promise<InvocationResult> {
    await this.ready;
    if (this.exited || !this.child.connected) {
      throw new InvocationError('sandbox process exited', 'crash');
    }
    const id = this.nextId++;
    return new Promise<InvocationResult>((resolve, reject) => {
      this.current = { id, resolve, reject };
      this.child.send({ id, event, requestId, deadline }, (error) => {
        if (error) this.fail(new InvocationError(`sandbox unreachable: ${error.message}`, 'crash'));
      });
    });
  }

  /** Kills the process now (after a timeout, as Lambda discards a timed-out sandbox). */
  kill(): void {
    this.killed = true;
    if (!this.exited) this.child.kill('SIGKILL');
  }

  /** Lets the process exit on its own (it has no invocation), killing it if it lingers. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.exited) return;
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    if (this.child.connected) this.child.disconnect();
    const kill = setTimeout(() => this.child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(kill);
  }

  /** Holds an answer until the invocation's lines are logged (or the wait is over). */
  private answer(message: WorkerMessage): void {
    const timer = setTimeout(() => this.settleWhenLogged(true), END_MARK_WAIT_MS);
    timer.unref();
    this.answered = { message, timer };
    this.settleWhenLogged();
  }

  private settleWhenLogged(waitedEnough = false): void {
    const answered = this.answered;
    if (!answered) return;
    const id = answered.message.id ?? -1;
    if (!waitedEnough && !this.endsSeen.every((seen) => seen >= id)) return;
    clearTimeout(answered.timer);
    this.answered = undefined;
    this.settle(answered.message);
  }

  private settle(message: WorkerMessage): void {
    const current = this.current;
    if (!current || current.id !== message.id) return;
    this.current = undefined;
    const measured = {
      durationMs: message.durationMs ?? 0,
      maxMemoryMb: Math.ceil((message.maxRssKiB ?? 0) / 1024),
    };
    if (message.type === 'result') current.resolve({ result: message.result, ...measured });
    else
      current.reject(new InvocationError(message.message ?? 'function error', 'error', measured));
  }

  private fail(error: InvocationError): void {
    const current = this.current;
    this.current = undefined;
    current?.reject(error);
  }
}
