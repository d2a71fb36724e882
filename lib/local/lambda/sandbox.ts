/**
 * One sandbox: a child process on Lambda's Node that runs a function bundle, one invocation at a
 * time, keeping its module scope between invocations until it is stopped or dies.
 */
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { findExecutable } from '../../cli/executable';

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
  /** `chrt`, to start the process through under SCHED_BATCH (`batchScheduler()`); else plain Node. */
  readonly scheduler?: string;
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
 * What starts the line with which the worker ends an invocation (`<mark><answer as JSON>`, on
 * stdout): the answer comes after every line the invocation printed there, on the same pipe,
 * so each is logged before the REPORT, as on Lambda. An invocation that wrote to stderr also
 * ends stderr with `<mark><id>` and its answer says so (`<mark>!<answer>`): the answer is settled
 * once that mark has come too (stderr is read in no fixed order with stdout). Never logged itself.
 */
export const END_MARK = '\u001fplant-store:end:';
/** How long an answer waits for stderr's mark (a function that closed its stderr sends none). */
const END_MARK_WAIT_MS = 1_000;

/**
 * How much nicer than this process every sandbox runs. On AWS the gateway, DynamoDB and SQS run
 * on machines of their own; here they share the cores with the functions, in this process. A
 * sandbox woken by its event would otherwise take the core from the process that serves every
 * request's next step (16 connections of creates: about a tenth more a second). Five, not more:
 * Linux still gives a sandbox a quarter of a core contested by a process at the default. On
 * Windows, Node maps a niceness under ten to the normal class: there it changes nothing.
 */
export const SANDBOX_NICENESS = 5;

/**
 * Lowers the sandbox's priority below this process's; a process already gone is left as it is.
 * Linux keeps a niceness per thread, and a thread starts with its creator's: set as the process
 * starts, before Node makes its threads, every thread has it. Called again once the bundle is
 * imported, it sets each thread Linux lists (/proc/<pid>/task), should one have come first.
 */
function yieldToServices(pid: number, everyThread = false): void {
  const niceness = Math.min(19, getPriority() + SANDBOX_NICENESS);
  let threads = [pid];
  if (everyThread && process.platform === 'linux') {
    try {
      threads = readdirSync(`/proc/${pid}/task`).map(Number);
    } catch {
      // Gone already, or no /proc: the process's own niceness stands.
    }
  }
  for (const thread of threads) {
    try {
      if (getPriority(thread) !== niceness) setPriority(thread, niceness);
    } catch {
      // Gone already: its exit is handled.
    }
  }
}

/**
 * util-linux's `chrt` in /usr/bin or /bin, on Linux, if it may set SCHED_BATCH here (`run`
 * starts it: it sets the policy, then runs itself in its own place to print its version); else
 * undefined, as where a sandboxed container refuses the policy.
 */
export function probeBatchScheduler(
  run: (file: string, args: string[]) => unknown = (file, args) =>
    execFileSync(file, args, { stdio: 'ignore', timeout: 5_000 }),
): string | undefined {
  const chrt =
    process.platform === 'linux' ? findExecutable('chrt', ['/usr/bin', '/bin']) : undefined;
  if (!chrt) return undefined;
  try {
    run(chrt, ['--batch', '0', chrt, '--version']);
    return chrt;
  } catch {
    return undefined;
  }
}

let batchSchedulerProbed: { chrt: string | undefined } | undefined;

/**
 * The `chrt` that starts every sandbox, probed once, when the first sandbox starts: each then
 * starts through `chrt --batch 0`, so that its every thread runs under SCHED_BATCH from its cold
 * start on: woken by its event or its store's answer, a sandbox waits for the running process's
 * slice to end instead of taking the core from it at once. The aim is fewer switches between the
 * 30-odd processes that share two cores at 16 connections. Undefined: plain Node, as elsewhere.
 */
export function batchScheduler(): string | undefined {
  batchSchedulerProbed ??= { chrt: probeBatchScheduler() };
  return batchSchedulerProbed.chrt;
}

/** Calls `onLine` with each line read from `stream` (a last one unfinished at its end too). */
function readLines(stream: Readable, onLine: (line: string) => void): void {
  let partial = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    let start = 0;
    for (let end = chunk.indexOf('\n'); end >= 0; end = chunk.indexOf('\n', start)) {
      const line = partial + chunk.slice(start, end);
      partial = '';
      onLine(line.endsWith('\r') ? line.slice(0, -1) : line);
      start = end + 1;
    }
    partial += chunk.slice(start);
  });
  stream.on('end', () => {
    if (partial) onLine(partial);
    partial = '';
  });
}

/**
 * `readLines` for a sandbox's stdout or stderr: each line to `log`, but the end mark's
 * (`END_MARK`): what follows the mark goes to `onMark`, and what a line the function left
 * unfinished printed before it, to `log`.
 */
function readMarkedLines(
  stream: Readable,
  log: (line: string) => void,
  onMark: (rest: string) => void,
): void {
  readLines(stream, (line) => {
    const mark = line.indexOf(END_MARK);
    if (mark < 0) return log(line);
    if (mark > 0) log(line.slice(0, mark));
    onMark(line.slice(mark + END_MARK.length));
  });
}

/** A sandbox process. `busy` is the pool's: one invocation at a time. */
export class Sandbox {
  busy = false;
  /** When its last invocation ended (`performance.now()`); the pool prefers the latest. */
  idleSince = 0;
  /** The pool's: stops the sandbox once it has been idle long enough. */
  idleTimer: NodeJS.Timeout | undefined;
  /** The pool's: the request id of the invocation it is serving, if any. */
  serving: string | undefined;
  /** Invocations started here; the first one reports the Init Duration. */
  invocations = 0;
  /** Importing the bundle, serving, or gone before it could. */
  state: 'starting' | 'ready' | 'failed' = 'starting';
  /** Set once the bundle is imported: the Init Duration of the first invocation's report. */
  initMs: number | undefined;
  /** Resolves when the bundle is imported; rejects when the import fails or the process dies. */
  readonly ready: Promise<void>;
  /** Resolves once the process is gone: exited, or never started. */
  private readonly gone: Promise<void>;
  private readonly child: ChildProcess;
  private current:
    | { id: number; resolve(r: InvocationResult): void; reject(e: InvocationError): void }
    | undefined;
  private nextId = 0;
  /** The last invocation whose end mark stderr has delivered. */
  private stderrEnd = -1;
  /** An answer that came before stderr's end mark, and the timer that stops waiting for it. */
  private answered: { message: WorkerMessage; timer: NodeJS.Timeout } | undefined;
  /** stdout has ended: no answer can come on it any more. */
  private stdoutEnded = false;
  private exited = false;
  private killed = false;
  private stopped = false;

  constructor(readonly options: SandboxOptions) {
    const chrt = options.scheduler;
    const spawned = performance.now();
    this.child = fork(WORKER, [], {
      // chrt sets the policy and runs Node in its place (the same process): `chrt --batch 0 node …`.
      execPath: chrt ?? options.nodePath,
      // A plain ES module: none of the parent's loader flags (tsx), as on Lambda.
      execArgv: [...(chrt ? ['--batch', '0', options.nodePath] : []), ...options.execArgv],
      env: {
        PATH: process.env.PATH ?? '',
        ...options.environment,
        PLANT_STORE_BUNDLE: options.bundle,
        PLANT_STORE_END_MARK: END_MARK,
      },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    if (this.child.pid !== undefined) yieldToServices(this.child.pid);
    // A spawn that failed for want of descriptors (EMFILE, ENFILE) has no pipes at all.
    const { stdout, stderr } = this.child;
    if (stdout) {
      readMarkedLines(stdout, options.log, (rest) => {
        const stderrMark = rest.startsWith('!');
        this.answer(JSON.parse(rest.slice(stderrMark ? 1 : 0)) as WorkerMessage, stderrMark);
      });
      stdout.once('end', () => (this.stdoutEnded = true));
    } else this.stdoutEnded = true;
    if (stderr) {
      readMarkedLines(stderr, options.log, (rest) => {
        this.stderrEnd = Number(rest);
        this.settleWhenLogged();
      });
    }
    let markGone = () => {};
    this.gone = new Promise<void>((resolve) => (markGone = resolve));
    this.ready = new Promise<void>((resolve, reject) => {
      this.child.on('message', (message: WorkerMessage) => {
        if (message.type === 'ready') {
          this.initMs = performance.now() - spawned;
          if (!this.exited && this.child.pid !== undefined) yieldToServices(this.child.pid, true);
          this.state = 'ready';
          resolve();
        } else if (message.type === 'init-error') {
          if (this.state === 'starting') this.state = 'failed';
          reject(new InvocationError(`init failed: ${message.message}`, 'error'));
          // Without a usable stdout the answer comes here, after whatever was printed.
        } else this.answer(message, false);
      });
      const ended = (reason: string) => {
        if (this.exited) return;
        this.exited = true;
        markGone();
        if (this.state === 'starting') this.state = 'failed';
        reject(new InvocationError(`sandbox process exited (${reason})`, 'crash'));
        // An answer written before the process went stands, marks or not: stdout is read to
        // its end first (or for as long as an answer waits for a mark).
        const gone = () => {
          this.settleWhenLogged(true);
          this.fail(new InvocationError(`sandbox process exited (${reason})`, 'crash'));
        };
        if (this.stdoutEnded || !this.current) gone();
        else {
          const timer = setTimeout(gone, END_MARK_WAIT_MS);
          this.child.stdout?.once('end', () => {
            clearTimeout(timer);
            gone();
          });
        }
        options.onExit(this, reason);
      };
      this.child.once('exit', (code, signal) => ended(signal ?? `exit code ${code}`));
      // A process that could not be started at all (no such file, EAGAIN, EMFILE) emits this
      // and never 'exit'; another error (a failed kill) leaves the process as it is.
      this.child.on('error', (error) => {
        if (this.child.pid === undefined) ended(`could not start: ${error.message}`);
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
    if (this.child.connected) this.child.disconnect();
    const kill = setTimeout(() => this.child.kill('SIGKILL'), 5_000);
    await this.gone;
    clearTimeout(kill);
  }

  /**
   * Settles an answer, held until stderr's lines are logged when the invocation wrote there (or
   * the wait is over).
   */
  private answer(message: WorkerMessage, stderrMark: boolean): void {
    if (!stderrMark || this.stderrEnd >= (message.id ?? -1)) return this.settle(message);
    const timer = setTimeout(() => this.settleWhenLogged(true), END_MARK_WAIT_MS);
    timer.unref();
    this.answered = { message, timer };
  }

  private settleWhenLogged(waitedEnough = false): void {
    const answered = this.answered;
    if (!answered) return;
    const id = answered.message.id ?? -1;
    if (!waitedEnough && this.stderrEnd < id) return;
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
