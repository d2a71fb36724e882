/**
 * Whose failure a failed delivery is. Only the receiver's own answers (a status other than 2xx)
 * or its silence (a refused connection, a timeout, a name that does not resolve) spend one of
 * its attempts; a failure of ours (the subscriptions table, the secrets key, the queue) is
 * retried soon and spends none. The deliver handler decides by the class, never by a message.
 */

/** The receiver answered other than 2xx, or not at all: one of its attempts is spent. */
export class ReceiverFailure {
  readonly owner = 'receiver' as const;
  constructor(
    /** What happened, in Node's words or as `status N` (never the receiver's body). */
    readonly reason: string,
    /** The receiver's status, when it answered. */
    readonly status?: number,
  ) {}
}

/** Our store, key or queue failed: retried soon, the receiver's attempts untouched. */
export class OurFailure extends Error {
  readonly owner = 'us' as const;
  constructor(
    /** What we were doing: `reading the subscriber`, `opening the secret`. */
    readonly step: string,
    cause: unknown,
  ) {
    super(`${step}: ${String((cause as Error)?.message ?? cause)}`, { cause });
    this.name = 'OurFailure';
  }
}

/** A failed delivery's cause, by owner. */
export type DeliveryFailure = ReceiverFailure | OurFailure;

/** Runs `step`; anything it throws becomes an `OurFailure` named after it. */
export async function ours<T>(step: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw error instanceof OurFailure ? error : new OurFailure(step, error);
  }
}
