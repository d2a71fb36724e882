/**
 * The open loop: each request is sent at the time the arrival rate schedules it, whether or not
 * earlier ones have answered, and its latency runs from that time. A closed-loop tool (autocannon,
 * a fixed set of connections each waiting for its answer) sends nothing while the server stalls,
 * so the stall reaches one request per connection instead of every request that arrives during
 * it: coordinated omission.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';
import type { LoadArgs } from './args';
import {
  CREATE,
  IdPool,
  idSequence,
  MixPicker,
  OPERATIONS,
  plan,
  Plants,
  usesPlant,
  type PlannedRequest,
} from './operations';
import { Recorder, type Outcome } from './record';

/** What the run tells its caller once a second. */
export interface Progress {
  readonly elapsedS: number;
  readonly rate: number;
  readonly sent: number;
  readonly answered: number;
  readonly inFlight: number;
  /** p99 of the answers that came in the last second, ms (0 when none). */
  readonly lastSecondP99Ms: number;
  readonly throttled: number;
  readonly serverErrors: number;
  readonly failed: number;
}

/** How the run went, besides the recorded latencies. */
export interface RunResult {
  readonly recorder: Recorder;
  readonly startedAt: Date;
  /** Measured seconds the schedule ran (the steps', or less when interrupted). */
  readonly elapsedS: number;
  /** Per step: seconds its schedule ran (its length, or less when interrupted; 0 if never). */
  readonly stepSeconds: number[];
  readonly interrupted: boolean;
  /** Plants created before the measured run, for get and delete. */
  readonly seeded: number;
  /** Per step: requests the schedule asked for, and those not sent for want of an id. */
  readonly scheduled: number[];
  readonly skipped: number[];
  /** How late the generator sent requests after their scheduled time, ms (its own lag). */
  readonly sendLagMs: { readonly p99: number; readonly max: number };
}

/** Sends one request and reads its answer to the end. */
export type Sender = (request: PlannedRequest) => Promise<{ status?: number; error?: string }>;

/** A sender over keep-alive sockets, at most `connections` at once (later requests wait). */
export function httpSender(
  args: LoadArgs,
  token: string | undefined,
): { send: Sender; close(): void } {
  const https = args.url.protocol === 'https:';
  const agent = new (https ? HttpsAgent : HttpAgent)({
    keepAlive: true,
    maxSockets: args.connections,
  });
  const base = args.url.pathname.replace(/\/$/, '');
  const send: Sender = (planned) =>
    new Promise((resolve) => {
      const headers: Record<string, string> = {};
      if (token) headers.authorization = `Bearer ${token}`;
      if (planned.body !== undefined) {
        headers['content-type'] = planned.contentType ?? 'application/json';
        headers['content-length'] = String(Buffer.byteLength(planned.body));
      }
      const request = (https ? httpsRequest : httpRequest)(
        args.url,
        {
          agent,
          method: planned.method,
          path: base + planned.path,
          headers,
          timeout: args.timeoutMs,
        },
        (response: IncomingMessage) => {
          response.on('data', () => {});
          response.on('end', () => resolve({ status: response.statusCode }));
          response.on('error', (error: NodeJS.ErrnoException) =>
            resolve({ error: error.code ?? 'error' }),
          );
        },
      );
      request.on('timeout', () =>
        request.destroy(Object.assign(new Error('timeout'), { code: 'timeout' })),
      );
      request.on('error', (error: NodeJS.ErrnoException) =>
        resolve({ error: error.code ?? 'error' }),
      );
      request.end(planned.body);
    });
  return { send, close: () => agent.destroy() };
}

/** Plants gets and changes name, created before the run (spread over the table's partitions). */
export const READ_SEED = 100;

/**
 * Plants to create before the run: `READ_SEED` for the operations that name a plant they keep
 * (gets, changes), and as many as the schedule holds deletes (plus 10), since the plants the run creates may answer too late to be deleted in time.
 */
export function seedCounts(args: LoadArgs): { readable: number; deletable: number } {
  const weights = OPERATIONS.reduce((sum, op) => sum + args.mix[op], 0);
  const requests =
    args.steps[0]!.rate * args.warmupSeconds +
    args.steps.reduce((sum, step) => sum + step.rate * step.seconds, 0);
  const weightOf = (use: 'names' | 'deletes') =>
    OPERATIONS.reduce((sum, op) => sum + (usesPlant(op) === use ? args.mix[op] : 0), 0);
  const deletes = weightOf('deletes');
  return {
    readable: weightOf('names') > 0 ? READ_SEED : 0,
    deletable: deletes > 0 ? Math.ceil((requests * deletes) / weights) + 10 : 0,
  };
}

/** Creates `count` plants into `pool`, 16 at a time; any answer but 200 stops the run. */
async function seed(count: number, pool: IdPool, send: Sender, newId: () => number) {
  if (count > 0 && CREATE === undefined) {
    throw new Error('the mix names existing plants, and no operation of the registry creates one');
  }
  for (let done = 0; done < count;) {
    const batch = Array.from({ length: Math.min(16, count - done) }, async () => {
      const planned = plan(CREATE!, new Plants(), newId)!;
      const answer = await send(planned);
      if (answer.status !== 200) {
        throw new Error(
          `seeding the plants that get and delete use: a create answered ${answer.status ?? answer.error}${answer.status === 401 || answer.status === 403 ? ' (is PLANT_STORE_TOKEN set, with plants:write?)' : ''}`,
        );
      }
      pool.add(planned.creates!);
    });
    await Promise.all(batch);
    done += batch.length;
  }
}

/** Runs the warm-up (not recorded) and the steps; `signal` stops scheduling early. */
export async function runLoad(
  args: LoadArgs,
  send: Sender,
  options: {
    readonly onProgress?: (progress: Progress) => void;
    readonly signal?: AbortSignal;
  } = {},
): Promise<RunResult> {
  const plants = new Plants();
  const newId = idSequence();
  const counts = seedCounts(args);
  await seed(counts.readable, plants.readable, send, newId);
  await seed(counts.deletable, plants.deletable, send, newId);
  const seeded = counts.readable + counts.deletable;

  const mix = new MixPicker(args.mix);
  const totalMs = args.steps.reduce((sum, step) => sum + step.seconds * 1000, 0);
  const recorder = new Recorder(
    args.steps.length,
    Math.max(100, Math.ceil(totalMs / 600 / 100) * 100),
  );
  const scheduled = args.steps.map(() => 0);
  const skipped = args.steps.map(() => 0);
  const lags: number[] = [];
  let sent = 0;
  let answered = 0;
  const inFlight = new Set<Promise<void>>();
  const lastSecond: number[] = [];
  const startedAt = new Date();

  // The phases the clock walks through: the warm-up (step -1, not recorded), then each step.
  const phases = [
    ...(args.warmupSeconds
      ? [{ step: -1, rate: args.steps[0]!.rate, seconds: args.warmupSeconds }]
      : []),
    ...args.steps.map((step, index) => ({ step: index, ...step })),
  ];
  const origin = performance.now();
  const measuredFrom = origin + args.warmupSeconds * 1000;
  let phaseIndex = 0;
  let phaseStart = origin;
  let sequence = 0; // requests scheduled so far in this phase
  let current = phases[0]!;
  const answers = { throttled: 0, serverErrors: 0, failed: 0 };

  const fire = (step: number, at: number) => {
    const operation = mix.next();
    const planned = plan(operation, plants, newId);
    if (step >= 0) scheduled[step]!++;
    if (!planned) {
      if (step >= 0) skipped[step]!++;
      return;
    }
    lags.push(performance.now() - at);
    sent++;
    const done = send(planned).then((answer) => {
      const end = performance.now();
      answered++;
      lastSecond.push(end - at);
      if (answer.status === 200 && planned.creates !== undefined) {
        plants.deletable.add(planned.creates);
      }
      if (answer.status === 429) answers.throttled++;
      else if (answer.status !== undefined && answer.status >= 500) answers.serverErrors++;
      else if (answer.status === undefined) answers.failed++;
      if (step < 0) return;
      const outcome: Outcome = {
        operation,
        step,
        scheduledMs: at - measuredFrom,
        latencyMs: end - at,
        ...answer,
      };
      recorder.record(outcome);
    });
    inFlight.add(done);
    void done.finally(() => inFlight.delete(done));
  };

  const progress = setInterval(() => {
    lastSecond.sort((a, b) => a - b);
    const p99 = lastSecond.length ? lastSecond[Math.ceil(lastSecond.length * 0.99) - 1]! : 0;
    lastSecond.length = 0;
    options.onProgress?.({
      elapsedS: Math.round((performance.now() - origin) / 1000),
      rate: current.rate,
      sent,
      answered,
      inFlight: inFlight.size,
      lastSecondP99Ms: p99,
      ...answers,
    });
  }, 1000);

  let interrupted = false;
  let stoppedAt = measuredFrom + totalMs;
  try {
    for (;;) {
      if (options.signal?.aborted) {
        interrupted = true;
        stoppedAt = performance.now();
        break;
      }
      const now = performance.now();
      // Fire every request whose time has come; each keeps its own scheduled time.
      for (;;) {
        const at = phaseStart + (sequence * 1000) / current.rate;
        if (at >= phaseStart + current.seconds * 1000) {
          phaseIndex++;
          if (phaseIndex === phases.length) break;
          phaseStart += current.seconds * 1000;
          current = phases[phaseIndex]!;
          sequence = 0;
          continue;
        }
        if (at > now) break;
        fire(current.step, at);
        sequence++;
      }
      if (phaseIndex === phases.length) break;
      const next = phaseStart + (sequence * 1000) / current.rate;
      await sleep(Math.max(0, next - performance.now()));
    }
    while (inFlight.size) await Promise.all([...inFlight]);
  } finally {
    clearInterval(progress);
  }
  lags.sort((a, b) => a - b);
  let stepStart = measuredFrom;
  const stepSeconds = args.steps.map((step) => {
    const ran = Math.min(step.seconds * 1000, Math.max(0, stoppedAt - stepStart)) / 1000;
    stepStart += step.seconds * 1000;
    return ran;
  });
  return {
    recorder,
    startedAt,
    elapsedS: stepSeconds.reduce((sum, seconds) => sum + seconds, 0),
    stepSeconds,
    interrupted,
    seeded,
    scheduled,
    skipped,
    sendLagMs: {
      p99: lags.length ? lags[Math.ceil(lags.length * 0.99) - 1]! : 0,
      max: lags.at(-1) ?? 0,
    },
  };
}
