/**
 * What one deliver sandbox knows of each subscriber across its batches: the subscriber as its
 * last read or grant answered it (at most `RESERVE_AHEAD_MS` old when used), the slots of the
 * subscriber's grid granted to this sandbox and not yet used, how many deliveries it asked for
 * in the last second (the size of its next grant), and the attempts it has not yet recorded.
 * So a busy sandbox makes one write a second per subscriber, whatever its batches, and reads
 * nothing: the grant answers the subscriber's address, secrets and state.
 */
import {
  currentRate,
  epochOfNextSlot,
  epochSlots,
  grantedStarts,
  PACE_EPOCH_MS,
  RESERVE_AHEAD_MS,
  spacingMs,
} from '../webhook/rate-limit';
import type { AttemptRecord, ReceiverStates, ReceiverView } from '../webhook/receiver-state';
import type { Narrow } from '../aws/table-definition';
import { DELIVER_GRANTS } from './grants';

/** Grants that lose a race to other sandboxes are asked again this many times. */
const GRANT_TRIES = 8;

/** What the sandbox knows of one subscriber. */
export interface Known {
  /** The subscriber as last read or granted; `undefined`: removed. */
  view: ReceiverView | undefined;
  /** When `view` was read (epoch ms). */
  at: number;
  /** Starts granted to this sandbox and not yet used (epoch ms, in order). */
  slots: number[];
  /** Deliveries asked for in the current second, and in the one before. */
  asked: { epoch: number; now: number; before: number };
  /** Attempts not yet recorded, in the order they ended. */
  pending: (AttemptRecord & { ok: boolean })[];
  /** When this sandbox last recorded the subscriber's attempts. */
  recordedAt: number;
  /** The latest attempts as this sandbox last wrote them (newest first), once known. */
  recent: AttemptRecord[] | undefined;
}

/** The answer for `count` deliveries at once: when each granted one starts, and how long the rest wait. */
export interface Slots {
  readonly view: ReceiverView | undefined;
  readonly starts: readonly number[];
  /** Epoch ms from which the grid may have room again for the rest. */
  readonly retryAt: number;
  /** The spacing of the grid the rest wait for. */
  readonly spacing: number;
}

/** One sandbox's knowledge of the subscribers: make one at cold start, share it with every batch. */
export class SandboxReceivers {
  private readonly known = new Map<string, Known>();

  constructor(
    private readonly states: Narrow<ReceiverStates, typeof DELIVER_GRANTS.tables.subscriptions>,
  ) {}

  /** What the sandbox knows of `subscriberId`, read again when older than `RESERVE_AHEAD_MS`. */
  async fresh(subscriberId: string, now: number): Promise<Known> {
    const known = this.entry(subscriberId, now);
    if (now - known.at > RESERVE_AHEAD_MS) {
      known.view = await this.states.read(subscriberId);
      known.at = now;
    }
    return known;
  }

  /** What the sandbox knows of `subscriberId` (a new entry, knowing nothing, the first time). */
  entry(subscriberId: string, now: number): Known {
    let known = this.known.get(subscriberId);
    if (!known) {
      known = {
        view: undefined,
        at: -Infinity,
        slots: [],
        asked: { epoch: 0, now: 0, before: 0 },
        pending: [],
        recordedAt: now,
        recent: undefined,
      };
      this.known.set(subscriberId, known);
    }
    return known;
  }

  /**
   * Starts for up to `count` deliveries to an enabled subscriber: first the slots this sandbox
   * holds, then a grant of the next second (as much as it asked for in the last second, so that
   * one write serves its batches all through it). Never a start before a `Retry-After` hold.
   */
  async take(subscriberId: string, count: number, now: number): Promise<Slots> {
    const known = await this.fresh(subscriberId, now);
    const epochNow = Math.floor(now / PACE_EPOCH_MS);
    if (known.asked.epoch !== epochNow) {
      known.asked = {
        epoch: epochNow,
        now: 0,
        before: known.asked.epoch === epochNow - 1 ? known.asked.now : 0,
      };
    }
    known.asked.now += count;
    const starts: number[] = [];
    let retryAt = (epochNow + 1) * PACE_EPOCH_MS;
    let spacing = spacingMs(currentRate(known.view ?? {}));
    for (let tries = 0; tries <= GRANT_TRIES; tries++) {
      const view = known.view;
      if (!view || view.disabledAt) break;
      const from = Math.max(now, view.nextSendAt ?? 0);
      known.slots = known.slots.filter((start) => start >= from);
      while (starts.length < count && known.slots.length > 0) {
        if (known.slots[0]! > now + RESERVE_AHEAD_MS) break;
        starts.push(known.slots.shift()!);
      }
      if (starts.length >= count || tries === GRANT_TRIES) break;
      // The next second of the grid with a slot at or after the hold.
      spacing = spacingMs(currentRate(view));
      const epoch = epochOfNextSlot(Math.max((epochNow + 1) * PACE_EPOCH_MS, from), spacing);
      const taken = view.granted.get(epoch);
      const slots = epochSlots(epoch, taken?.spacing ?? spacing);
      retryAt = (epoch + 1) * PACE_EPOCH_MS;
      const free = slots.count - (taken?.used ?? 0);
      if (free <= 0 || slots.first * slots.spacing > now + RESERVE_AHEAD_MS) {
        retryAt = Math.max(retryAt, slots.first * slots.spacing);
        break;
      }
      const n = Math.min(free, Math.max(count - starts.length, known.asked.before));
      const drop = [...view.granted.keys()].filter((e) => e < epoch - 1);
      const grant = await this.states.grant(
        subscriberId,
        { slots, n, seen: { rate: view.rate, slowdown: view.slowdown } },
        drop,
      );
      known.view = grant.view;
      known.at = now;
      if (grant.granted) {
        known.slots = [...known.slots, ...grantedStarts(slots, grant.from, n)].sort(
          (a, b) => a - b,
        );
      }
    }
    return { view: known.view, starts, retryAt, spacing };
  }

  /** The sandbox's own `Retry-After` hold, before its write is read back. */
  hold(subscriberId: string, until: number): void {
    const known = this.known.get(subscriberId);
    if (known?.view && (known.view.nextSendAt ?? 0) < until) {
      known.view = { ...known.view, nextSendAt: until };
    }
  }

  /** What the sandbox knows of `subscriberId`, if anything. */
  get(subscriberId: string): Known | undefined {
    return this.known.get(subscriberId);
  }
}
