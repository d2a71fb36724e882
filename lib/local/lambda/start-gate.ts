/**
 * How many sandboxes may be starting at once, across every function of a run. Lambda starts a
 * burst's execution environments in parallel on other hosts, each in about the time of one; on
 * one machine, Node processes that start together share its cores and each takes as long as all
 * of them (60 at once on two cores: seconds each, the gateway and the engine starved meanwhile).
 * Starting as many at a time as there are cores keeps each start as short as a lone one, so the
 * sandboxes of a burst are ready sooner one after another than all together.
 */
import { availableParallelism } from 'node:os';

/** A counting semaphore for sandbox starts. */
export class StartGate {
  private starting = 0;
  private readonly waiting: (() => void)[] = [];

  /** @param slots starts at once @default - the machine's available parallelism */
  constructor(readonly slots: number = availableParallelism()) {
    if (!(Number.isInteger(slots) && slots >= 1)) {
      throw new Error(`a start gate needs at least one slot, not ${slots}`);
    }
  }

  /** Waits for a slot; the returned function gives it back (calling it again does nothing). */
  async enter(): Promise<() => void> {
    if (this.starting < this.slots) this.starting++;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      // The slot passes straight to the next in line, so the count stays right.
      if (next) next();
      else this.starting--;
    };
  }
}
