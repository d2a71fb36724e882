/**
 * One batch's gate to each subscriber: whether a delivery may be attempted now (the subscriber
 * is enabled and the delivery fits its pace), and what the attempts taught us (a run of
 * failures, a slowdown, a `Retry-After` hold, a disable). The deliveries of one subscriber in a
 * batch ask at once; the gate answers them together from what the sandbox holds
 * (`sandbox-receivers.ts`): its slots of the subscriber's grid, or one grant for the next
 * second. Attempts are recorded on the subscriber's item when they change something (a run of
 * failures begins or ends, the slowdown moves, the warning is due, a delivery is given up) and
 * otherwise at most every `RECORD_EVERY_MS`; each batch's attempts are shown on the attempts
 * item when it ends.
 */
import {
  asksToSlowDown,
  attemptText,
  DISABLE_AFTER_FAILING_SECONDS,
  isGone,
  WARN_AT_CONSECUTIVE_FAILURES,
} from '../webhook/health';
import type { Attempt } from './post';
import { maxSlowdown, START_TOLERANCE_MS } from '../webhook/rate-limit';
import type { ReceiverState, ReceiverStates, ReceiverView } from '../webhook/receiver-state';
import type { SealedSubscriber } from '../webhook/subscriptions-table';
import { SandboxReceivers, type Known } from './sandbox-receivers';
import { RETRY_AFTER_STATUSES, retryAfterSeconds } from '../webhook/retry-after';
import { MAX_VISIBILITY_SECONDS } from '../webhook/visibility';
import type { Narrow } from '../aws/table-definition';
import { DELIVER_GRANTS } from './grants';

/** What a delivery may do now. */
export type Admission =
  /** Attempt it at `startAt` (epoch ms; wait until then), to the subscriber as it is. */
  | { readonly verdict: 'go'; readonly startAt: number; readonly subscriber: SealedSubscriber }
  /** Not yet: receive it again in `seconds` (queue seconds, scaled locally); no attempt spent. */
  | { readonly verdict: 'wait'; readonly seconds: number }
  /** The subscriber is disabled: drop it once `dropped` has kept it for `enable`'s replay. */
  | { readonly verdict: 'disabled' }
  /** The subscriber was removed. */
  | { readonly verdict: 'removed' };

/** What became of a delivery to a disabled subscriber. */
export type Drop =
  /** Kept: `enable`'s replay delivers it; the message is done with. */
  | { readonly kept: true }
  /** Enabled meanwhile (or disabled again from a later plant): receive it again in `seconds`. */
  | { readonly kept: false; readonly seconds: number };

/** What the gate tells the operator (a log line and a metric each). */
export interface GateEvents {
  /** A subscriber was disabled, and why (`410 Gone`, or its run of failures). */
  disabled(subscriberId: string, reason: string): void;
  /** A subscriber's run of failures reached `WARN_AT_CONSECUTIVE_FAILURES`. */
  failing(subscriberId: string, consecutiveFailures: number, since: string): void;
}

/** What the gate needs. */
export interface GateDeps {
  /** The receiver states, narrowed to the deliverer's grants on the subscriptions table. */
  readonly states: Narrow<ReceiverStates, typeof DELIVER_GRANTS.tables.subscriptions>;
  /** What the sandbox knows across batches. @default - a new one (nothing known) */
  readonly sandbox?: SandboxReceivers;
  readonly events: GateEvents;
  /**
   * `PLANT_STORE_WEBHOOK_RETRY_SCALE` (1 deployed): the local queue multiplies every visibility
   * timeout by it, so a wait for the rate (real seconds) is asked as `seconds / scale`, and a
   * `Retry-After` hold (schedule time) is scaled here. The disable window is not: it is no wait
   * of the schedule, and locally each attempt also costs the queue's batching window, so a
   * scaled window would pass before a scaled schedule ends.
   */
  readonly scale?: number;
  readonly now?: () => number;
}

/** What one attempt came to, as the deliverer saw it. */
export interface AttemptReport {
  readonly webhookId: string;
  readonly attempt: number;
  /** When the plant was stored (ISO): where `enable`'s replay starts if this one is kept. */
  readonly storedAt: string;
  readonly startedAt: number;
  readonly result: Attempt;
}

/** After an attempt: when to try again, if the receiver said. */
export interface AttemptVerdict {
  /** The receiver's `Retry-After` in seconds (schedule time: unscaled), on a 429 or 503. */
  readonly retryAfterSeconds?: number;
  /** 410: the subscriber is disabled and this delivery is kept for `enable`, not retried. */
  readonly gone: boolean;
}

interface Pending {
  readonly resolve: (admission: Admission) => void;
  readonly reject: (error: unknown) => void;
}

interface Subscriber {
  state: Promise<ReceiverState | undefined>;
  waiting: Pending[];
  flushing: Promise<void> | undefined;
  /** This batch's attempts: any, any success, any that asked to slow down, any given up. */
  attempted: boolean;
  anyOk: boolean;
  slowDown: boolean;
  gaveUp: boolean;
  /** Deliveries dropped since the last keep, and the oldest plant among them. */
  drops: { resolve(drop: Drop): void; reject(error: unknown): void }[];
  droppedStoredAt: string | undefined;
  keeping: Promise<void> | undefined;
}

/**
 * How often a sandbox records on the subscriber's item attempts that change nothing (successes
 * in a row, a known run); a batch after a quiet spell shows them sooner (`QUIET_MS`).
 */
export const RECORD_EVERY_MS = 10_000;

/**
 * A batch that ends this long after the sandbox's previous batch to the same subscriber shows
 * its attempts at once (one write of the attempts item). Under a steady stream (batches closer
 * than this) nothing more is written: the next batch or the record every `RECORD_EVERY_MS`
 * shows them, and the deliverer's writes stay what the capacity model counts.
 */
export const QUIET_MS = 1_000;

/**
 * One batch's gate: make one per batch, `admit` before each attempt, `report` after (and
 * `gaveUp` if the delivery is dead-lettered), `close`.
 */
export class ReceiverGate {
  private readonly subscribers = new Map<string, Subscriber>();
  private readonly scale: number;
  private readonly now: () => number;
  private readonly sandbox: SandboxReceivers;

  constructor(private readonly deps: GateDeps) {
    this.scale = deps.scale ?? 1;
    this.now = deps.now ?? Date.now;
    this.sandbox = deps.sandbox ?? new SandboxReceivers(deps.states);
  }

  /** Whether the delivery may be attempted, and when; asks of one subscriber are answered together. */
  admit(subscriberId: string): Promise<Admission> {
    const subscriber = this.subscriber(subscriberId);
    return new Promise<Admission>((resolve, reject) => {
      subscriber.waiting.push({ resolve, reject });
      // Answer every ask made before the event loop turns: one reservation for all of them.
      subscriber.flushing ??= new Promise<void>((done) => setImmediate(done)).then(() =>
        this.answer(subscriberId, subscriber),
      );
    });
  }

  /**
   * A delivery to a disabled subscriber is dropped: resolves kept once the next `enable`'s replay
   * is sure to deliver its plant (stored at `storedAt`), so that its message is never done with
   * before; otherwise it goes back to be delivered.
   * The drops of one subscriber made before the event loop turns are kept with one write.
   */
  dropped(subscriberId: string, storedAt: string): Promise<Drop> {
    const subscriber = this.subscriber(subscriberId);
    if (!subscriber.droppedStoredAt || storedAt < subscriber.droppedStoredAt) {
      subscriber.droppedStoredAt = storedAt;
    }
    return new Promise<Drop>((resolve, reject) => {
      subscriber.drops.push({ resolve, reject });
      subscriber.keeping ??= new Promise<void>((done) => setImmediate(done)).then(() =>
        this.keep(subscriberId, subscriber),
      );
    });
  }

  /** Learns from one attempt; a 410 disables at once, a `Retry-After` holds the subscriber. */
  async report(subscriberId: string, report: AttemptReport): Promise<AttemptVerdict> {
    const subscriber = this.subscriber(subscriberId);
    const { result, startedAt } = report;
    const ok = 'status' in result && result.status >= 200 && result.status < 300;
    subscriber.attempted = true;
    if (ok) subscriber.anyOk = true;
    this.sandbox.entry(subscriberId, this.now()).pending.push({
      at: new Date(startedAt).toISOString(),
      webhookId: report.webhookId,
      attempt: report.attempt,
      ms: Math.max(0, this.now() - startedAt),
      ...('status' in result ? { status: result.status } : { failure: result.failure }),
      ok,
    });
    if (asksToSlowDown(result)) subscriber.slowDown = true;
    if (isGone(result)) {
      await this.disable(subscriberId, attemptText(result), report.storedAt);
      return { gone: true };
    }
    const seconds =
      'status' in result && RETRY_AFTER_STATUSES.has(result.status)
        ? retryAfterSeconds(result.retryAfter, this.now())
        : undefined;
    if (seconds !== undefined) {
      // Best effort: this delivery waits its Retry-After whatever; the hold spares the others.
      const until = this.now() + seconds * 1000 * this.scale;
      this.sandbox.hold(subscriberId, until);
      await this.deps.states.holdUntil(subscriberId, until).catch(() => undefined);
    }
    return { gone: false, ...(seconds === undefined ? {} : { retryAfterSeconds: seconds }) };
  }

  /**
   * A delivery to the subscriber was given up after its attempt (dead-lettered): `close` writes
   * the run at once. Its attempt number cannot say so: `Retry-After`s shorter than the schedule
   * earn a delivery attempts past `MAX_ATTEMPTS` until the horizon, and those wait for the record.
   */
  gaveUp(subscriberId: string): void {
    this.subscriber(subscriberId).gaveUp = true;
  }

  /**
   * Writes what the batch taught about each subscriber when it changes something (its run of
   * failures begins or ends, its slowdown moves, its 4th failure in a row is due), when it gave
   * a delivery up, or when the sandbox last wrote `RECORD_EVERY_MS` ago: its run of failures and
   * slowdown, its latest attempts; otherwise, after a quiet spell, shows the attempts alone.
   * Warns at the run's 4th failure, disables after 5 days of nothing else.
   */
  async close(): Promise<void> {
    await Promise.all(
      [...this.subscribers].map(async ([subscriberId, subscriber]) => {
        if (!subscriber.attempted) return;
        // What the sandbox knows (read once if it never was: the item may be stale, not unknown).
        const known = this.sandbox.entry(subscriberId, this.now());
        const quiet = this.now() - known.batchAt >= QUIET_MS;
        known.batchAt = this.now();
        if (known.at === -Infinity) await this.sandbox.fresh(subscriberId, this.now());
        const state = known.view;
        if (!state || known.pending.length === 0) return;
        const slowdown = subscriber.slowDown
          ? Math.min(maxSlowdown(state.rate), (state.slowdown ?? 0) + 1)
          : subscriber.anyOk
            ? Math.max(0, (state.slowdown ?? 0) - 1)
            : (state.slowdown ?? 0);
        // A delivery given up is written at once: after its dead letter no later batch to this
        // subscriber may come to write the run (`list` would show it short for good). At most
        // once a batch, and only for a receiver that failed for the whole horizon.
        if (!subscriber.gaveUp && !this.due(known, state, slowdown)) {
          if (quiet) await this.show(subscriberId, known);
          return;
        }
        const attempts = known.pending.splice(0);
        const shown = known.shown;
        known.shown = 0;
        const earlier = known.recent ?? (await this.deps.states.recentAttempts(subscriberId)) ?? [];
        const recorded = await this.deps.states
          .record(subscriberId, { attempts, slowdown, earlier, shown })
          .catch((error: unknown) => {
            known.pending.unshift(...attempts);
            known.shown = shown;
            throw error;
          });
        known.recordedAt = this.now();
        if (!recorded) return;
        known.view = recorded.view;
        known.at = this.now();
        known.recent = recorded.recent;
        const after = recorded.view;
        if (after.disabledAt || after.consecutiveFailures === 0) return;
        const since = new Date(after.failingSince ?? this.now()).toISOString();
        const before = after.consecutiveFailures - attempts.length;
        if (
          before < WARN_AT_CONSECUTIVE_FAILURES &&
          after.consecutiveFailures >= WARN_AT_CONSECUTIVE_FAILURES
        ) {
          this.deps.events.failing(subscriberId, after.consecutiveFailures, since);
        }
        const window = DISABLE_AFTER_FAILING_SECONDS * 1000;
        if (after.failingSince !== undefined && this.now() - after.failingSince >= window) {
          const last = attempts.at(-1)!;
          const reason = `every attempt failed since ${since} (${after.consecutiveFailures}, the last: ${last.status === undefined ? last.failure : attemptText({ status: last.status })})`;
          // The deliveries still queued are dropped as they come and replayed by `enable`.
          await this.disable(subscriberId, reason, since);
        }
      }),
    );
  }

  /**
   * Shows the attempts the subscriber's item does not need yet (successes in a row, a known
   * run) on the attempts item alone, when a batch after a quiet spell ends: `webhook attempts`
   * sees a lone success at once, and the subscriber's item waits until due.
   */
  private async show(subscriberId: string, known: Known): Promise<void> {
    const fresh = known.pending.slice(known.shown);
    if (fresh.length === 0) return;
    const earlier = known.recent ?? (await this.deps.states.recentAttempts(subscriberId)) ?? [];
    known.recent = await this.deps.states.showAttempts(subscriberId, fresh, earlier);
    known.shown = known.pending.length;
  }

  /** Whether the sandbox's unrecorded attempts change what the item says, or are due anyway. */
  private due(known: Known, state: ReceiverView, slowdown: number): boolean {
    const failures = known.pending.length - 1 - known.pending.findLastIndex((a) => a.ok);
    const running = state.consecutiveFailures;
    return (
      slowdown !== (state.slowdown ?? 0) ||
      (running > 0 && known.pending.some((a) => a.ok)) ||
      (running === 0 && failures > 0) ||
      (running < WARN_AT_CONSECUTIVE_FAILURES && failures > 0) ||
      this.now() - known.recordedAt >= RECORD_EVERY_MS
    );
  }

  private subscriber(subscriberId: string): Subscriber {
    let subscriber = this.subscribers.get(subscriberId);
    if (!subscriber) {
      subscriber = {
        state: this.sandbox.fresh(subscriberId, this.now()).then((known) => known.view),
        waiting: [],
        flushing: undefined,
        attempted: false,
        anyOk: false,
        slowDown: false,
        gaveUp: false,
        drops: [],
        droppedStoredAt: undefined,
        keeping: undefined,
      };
      // A failed read is answered to each ask (our failure); never an unhandled rejection.
      subscriber.state.catch(() => undefined);
      this.subscribers.set(subscriberId, subscriber);
    }
    return subscriber;
  }

  /**
   * Keeps the drops waiting for `subscriber` from their oldest plant: the replay point moves back
   * to it, or (already as old, or the write refused) a consistent read shows the subscriber
   * still disabled with a replay point at or before it. Otherwise they go back to be delivered.
   */
  private async keep(subscriberId: string, subscriber: Subscriber): Promise<void> {
    const drops = subscriber.drops.splice(0);
    const storedAt = subscriber.droppedStoredAt!;
    subscriber.droppedStoredAt = undefined;
    subscriber.keeping = undefined;
    try {
      const state = await subscriber.state;
      // The replay from `view`'s point starts at this plant or before it.
      const covers = (view: ReceiverState | undefined) =>
        view?.replayFrom !== undefined && view.replayFrom <= storedAt;
      let drop: Drop = { kept: true };
      // Kept only while the subscriber is disabled with a replay point at or before the plant, as
      // the write or a consistent read says. The sandbox's view may be stale: enable may have run
      // since, and its replay may have queued these very deliveries (or it was disabled again,
      // from a later plant), so the view's replay point is no promise. Otherwise they are
      // delivered (at least once: a replay may send one again, with its webhook-id).
      if (state) {
        const written =
          !covers(state) && (await this.deps.states.keepForReplay(subscriberId, storedAt));
        const fresh = written ? undefined : await this.deps.states.read(subscriberId);
        // Disabled, and the next enable's replay covers this plant.
        const replayed = fresh?.disabledAt !== undefined && covers(fresh);
        if (fresh && !replayed) drop = { kept: false, seconds: this.queueSeconds(1000) };
      }
      for (const pending of drops) pending.resolve(drop);
    } catch (error) {
      for (const pending of drops) pending.reject(error);
    }
  }

  private async disable(subscriberId: string, reason: string, storedAt: string): Promise<void> {
    const at = new Date(this.now()).toISOString();
    // Before the write: the deliveries of this sandbox about to start stop now, not after it.
    this.sandbox.disabled(subscriberId, at);
    const disabled = await this.deps.states.disable(subscriberId, at, reason, storedAt);
    if (disabled) {
      this.deps.events.disabled(subscriberId, reason);
    }
  }

  /** Answers every ask waiting for `subscriber` from the sandbox's slots (or one grant). */
  private async answer(subscriberId: string, subscriber: Subscriber): Promise<void> {
    const waiting = subscriber.waiting.splice(0);
    subscriber.flushing = undefined;
    try {
      await subscriber.state;
      const now = this.now();
      const { view, starts, retryAt, spacing } = await this.sandbox.take(
        subscriberId,
        waiting.length,
        now,
      );
      subscriber.state = Promise.resolve(view);
      const answers: Admission[] = [];
      if (!view) answers.push(...waiting.map(() => ({ verdict: 'removed' }) as const));
      else if (view.disabledAt) {
        answers.push(...waiting.map(() => ({ verdict: 'disabled' }) as const));
      } else {
        for (const startAt of starts) {
          answers.push({ verdict: 'go', startAt, subscriber: view.subscriber });
        }
        // The rest queue behind every delivery this sandbox already sent back to wait, one
        // slot apart, so that its batches do not all aim theirs at the same second.
        const known = this.sandbox.entry(subscriberId, now);
        let at = Math.max(retryAt, view.nextSendAt ?? 0, known.deferredUntil);
        while (answers.length < waiting.length) {
          answers.push({ verdict: 'wait', seconds: this.queueSeconds(at - now) });
          at += spacing;
        }
        known.deferredUntil = at;
      }
      waiting.forEach((pending, i) => pending.resolve(answers[i]!));
    } catch (error) {
      for (const pending of waiting) pending.reject(error);
    }
  }

  /**
   * What a delivery granted `startAt` does once that time has come, from what the sandbox knows
   * now (no call): `undefined` to send it. A 410 or a `Retry-After` heard since it was admitted
   * (by any delivery of this sandbox) stops it: disabled, it is kept for `enable`; held past its
   * start, it waits for the hold. One that woke too late (a busy sandbox) waits its turn again:
   * sent now, it could start closer than the pace to the next one, already reserved on time.
   */
  atStart(subscriberId: string, startAt: number): Admission | undefined {
    const view = this.sandbox.get(subscriberId)?.view;
    if (view?.disabledAt) return { verdict: 'disabled' };
    const now = this.now();
    const held = view?.nextSendAt ?? 0;
    if (held > startAt) return { verdict: 'wait', seconds: this.queueSeconds(held - now) };
    return now - startAt > START_TOLERANCE_MS
      ? { verdict: 'wait', seconds: this.queueSeconds(1000) }
      : undefined;
  }

  /** Real milliseconds as the visibility seconds to ask the queue for (it scales them locally). */
  private queueSeconds(ms: number): number {
    return Math.min(MAX_VISIBILITY_SECONDS, Math.max(1, Math.ceil(ms / 1000 / this.scale)));
  }
}
