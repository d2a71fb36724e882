/**
 * What one deliver sandbox knows of each subscriber across its batches: the subscriber as its
 * last read or grant answered it (at most `RESERVE_AHEAD_MS` old when used), the slots of the
 * subscriber's grid granted to this sandbox and not yet used, how many deliveries it asked for
 * in the last second (what its next grant adds), and the attempts it has not yet recorded.
 * So a busy sandbox makes one write a second per subscriber, whatever its batches, and reads
 * nothing: the grant answers the subscriber's address, secrets and state.
 */
import {
  currentRate,
  epochOfNextSlot,
  epochSlots,
  GRANT_EPOCHS,
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
  /** Deliveries asked for in the current second (`epoch`: epoch seconds), and in the one before. */
  asked: { epoch: number; now: number; before: number };
  /** Attempts not yet recorded on the subscriber's item, in the order they ended. */
  pending: (AttemptRecord & { ok: boolean })[];
  /** How many of `pending` (the first ones) are already shown on the attempts item. */
  shown: number;
  /** When this sandbox's last batch with attempts to the subscriber ended (epoch ms). */
  batchAt: number;
  /** When this sandbox last recorded the subscriber's attempts. */
  recordedAt: number;
  /** The latest attempts as this sandbox last wrote them (newest first), once known. */
  recent: AttemptRecord[] | undefined;
  /** When the next delivery this sandbox sends back to wait is aimed at (epoch ms). */
  deferredUntil: number;
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
        shown: 0,
        batchAt: -Infinity,
        recordedAt: now,
        recent: undefined,
        deferredUntil: -Infinity,
      };
      this.known.set(subscriberId, known);
    }
    return known;
  }

  /**
   * Starts for up to `count` deliveries to an enabled subscriber: first the slots this sandbox
   * holds, then one grant of the next second of the grid: this batch's deliveries from its
   * nearest epochs, and as many more as the sandbox asked for in the second before, spread over
   * the second, so that one write serves its batches all through it. Never a start before a
   * `Retry-After` hold.
   */
  async take(subscriberId: string, count: number, now: number): Promise<Slots> {
    const known = await this.fresh(subscriberId, now);
    const second = Math.floor(now / 1000);
    if (known.asked.epoch !== second) {
      const before = known.asked.epoch === second - 1 ? known.asked.now : 0;
      known.asked = { epoch: second, now: 0, before };
    }
    known.asked.now += count;
    const starts: number[] = [];
    const next = (Math.floor(now / PACE_EPOCH_MS) + 1) * PACE_EPOCH_MS;
    let retryAt = next;
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
      spacing = spacingMs(currentRate(view));
      // Never at or below the epochs that left the item (a sandbox whose clock runs ahead).
      const floor = view.paceFloor ?? -Infinity;
      const first = epochOfNextSlot(Math.max(next, from, (floor + 1) * PACE_EPOCH_MS), spacing);
      // An epoch keeps the spacing of its first grant, and gets no more once the pace is sparser
      // (a slowdown, a lower rate): what was granted before goes, nothing more at the old pace.
      const epochs = Array.from({ length: GRANT_EPOCHS }, (_, k) => {
        const taken = view.granted.get(first + k);
        const slots = epochSlots(first + k, taken?.spacing ?? spacing);
        return { slots, free: slots.count - (taken?.used ?? 0), n: 0, fresh: !taken };
      }).filter(
        ({ slots, free, fresh }) =>
          free > 0 &&
          slots.spacing >= spacing &&
          slots.first * slots.spacing <= now + RESERVE_AHEAD_MS &&
          !(fresh && nearOtherGrid(view, slots.epoch, spacing)),
      );
      retryAt = Math.max(next, (first + GRANT_EPOCHS) * PACE_EPOCH_MS);
      // This batch's deliveries from the nearest epochs, then the second's expected demand.
      let need = count - starts.length;
      for (const epoch of epochs) {
        epoch.n = Math.min(epoch.free, need);
        need -= epoch.n;
      }
      const expected = Math.ceil(Math.max(0, known.asked.before - count) / GRANT_EPOCHS);
      for (const epoch of epochs) epoch.n += Math.min(epoch.free - epoch.n, expected);
      const asked = epochs.filter((epoch) => epoch.n > 0);
      if (asked.length === 0) break;
      const grant = await this.states.grant(
        subscriberId,
        { epochs: asked, seen: { rate: view.rate, slowdown: view.slowdown } },
        // Epochs gone by leave once their own spacing and the current one have passed too
        // (`nearOtherGrid` reads them).
        [...view.granted]
          .filter(
            ([epoch, taken]) =>
              epoch < first - 1 - Math.ceil(Math.max(taken.spacing, spacing) / PACE_EPOCH_MS),
          )
          .map(([epoch]) => epoch),
      );
      known.view = grant.view;
      known.at = now;
      if (grant.granted) {
        const granted = asked.flatMap(({ slots, n }, i) => grantedStarts(slots, grant.from[i]!, n));
        known.slots = [...known.slots, ...granted].sort((a, b) => a - b);
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

  /** The sandbox's own disable, before its write is read back: nothing more goes to it. */
  disabled(subscriberId: string, at: string): void {
    const known = this.known.get(subscriberId);
    if (!known) return;
    known.slots = [];
    if (known.view && !known.view.disabledAt) known.view = { ...known.view, disabledAt: at };
  }

  /** What the sandbox knows of `subscriberId`, if anything. */
  get(subscriberId: string): Known | undefined {
    return this.known.get(subscriberId);
  }
}

/**
 * Whether a new epoch at `spacing` would sit too close to an epoch of another grid (the pace
 * changed, and slots granted before are still ahead or just behind): a slot of one could come
 * less than `spacing` from a slot of the other, and a receiver counting at the new rate would
 * count one more. Such an epoch is left empty; the new grid starts once `spacing` separates them.
 */
function nearOtherGrid(view: ReceiverView, epoch: number, spacing: number): boolean {
  for (const [other, taken] of view.granted) {
    const gap = (Math.abs(epoch - other) - 1) * PACE_EPOCH_MS;
    if (other !== epoch && taken.spacing !== spacing && gap < spacing) return true;
  }
  return false;
}
