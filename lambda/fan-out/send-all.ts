/**
 * Many deliveries onto the queue in SendMessageBatch calls of ten, whatever records they come
 * from (fewer when ten would pass SQS's 256 KiB a call), at most `inFlight` calls at once. A
 * delivery too large to queue (`fitsAsDelivery`) is refused here, never sent. What the queue
 * refuses for a passing reason (throttled, its own error), and what a failed call carried (the
 * client's attempts spent, or timed out: it may or may not be queued), is sent again after a
 * pause, batched with the other such entries, until `until`; an entry refused as malformed
 * (`SenderFault`: our bug) is never sent again. No call starts after `until`, in the first round
 * either. An entry the queue accepted is never sent again, so a refusal duplicates nothing; only
 * a call that failed without an answer can queue its entries twice (with the same `webhook-id`s).
 */
import type { DeliveryQueue, RefusedEntry } from '../webhook/delivery-queue';
import type { DeliveryMessage } from '../webhook/message';
import { bodyBytes, fitsAsDelivery, queueBody, sqsBatches } from '../webhook/queue-body';

/** What became of one entry. */
export type EntryFate =
  /** Accepted by the queue. */
  | { readonly fate: 'queued' }
  /** Refused as malformed: sending it again cannot help. */
  | { readonly fate: 'refused'; readonly reason: string }
  /** Not accepted by `until` (the last failure says why). */
  | { readonly fate: 'pending'; readonly error: unknown };

/** How `sendAll` sends. */
export interface SendAllOptions {
  /** SendMessageBatch calls in flight at once. */
  readonly inFlight: number;
  /** When to stop sending again what was refused or failed (epoch ms). */
  readonly until: number;
  /** @default Date.now */
  readonly now?: () => number;
  /** The first pause before a round of entries sent again; it doubles, up to `maxPauseMs`. @default 50 */
  readonly firstPauseMs?: number;
  /** @default 1000 */
  readonly maxPauseMs?: number;
}

/** Runs `run` on each item, at most `limit` at once, taking items in order. */
async function inPool<T>(items: readonly T[], limit: number, run: (item: T) => Promise<void>) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await run(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** Sends every message; answers each one's fate, in the order given. */
export async function sendAll(
  messages: readonly DeliveryMessage[],
  queue: Pick<DeliveryQueue, 'sendBatch'>,
  options: SendAllOptions,
): Promise<EntryFate[]> {
  const now = options.now ?? Date.now;
  const bodies = messages.map(queueBody);
  const sizes = bodies.map(bodyBytes);
  const fits = sizes.map(fitsAsDelivery);
  const fates: EntryFate[] = sizes.map((size, index) =>
    fits[index]
      ? { fate: 'pending', error: undefined }
      : { fate: 'refused', reason: `a delivery of ${size} bytes, too large to queue` },
  );
  let round = fits.flatMap((fit, index) => (fit ? [index] : []));
  let pause = options.firstPauseMs ?? 50;
  for (;;) {
    const again: number[] = [];
    await inPool(sqsBatches(round, sizes), options.inFlight, async (chunk) => {
      // A call started past the deadline could outlive the invocation (Lambda would then retry
      // the whole batch, repeating what was queued): what is left waits for the retry instead.
      if (now() >= options.until) {
        const error = new Error('not sent: the invocation is near its timeout');
        for (const index of chunk) fates[index] = { fate: 'pending', error };
        return;
      }
      let refused: RefusedEntry[];
      try {
        refused = await queue.sendBatch(
          chunk.map((index) => ({
            id: String(index),
            message: messages[index]!,
            body: bodies[index]!,
          })),
        );
      } catch (error) {
        for (const index of chunk) fates[index] = { fate: 'pending', error };
        again.push(...chunk);
        return;
      }
      const byId = new Map(refused.map((entry) => [entry.id, entry]));
      for (const index of chunk) {
        const entry = byId.get(String(index));
        if (!entry) fates[index] = { fate: 'queued' };
        else if (entry.senderFault) fates[index] = { fate: 'refused', reason: entry.reason };
        else {
          fates[index] = {
            fate: 'pending',
            error: new Error(`the queue refused: ${entry.reason}`),
          };
          again.push(index);
        }
      }
    });
    if (again.length === 0 || now() + pause > options.until) return fates;
    await new Promise((resolve) => setTimeout(resolve, pause));
    pause = Math.min(pause * 2, options.maxPauseMs ?? 1_000);
    round = again.sort((a, b) => a - b);
  }
}
