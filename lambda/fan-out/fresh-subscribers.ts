/**
 * The subscriber list as a fan-out sandbox keeps it: read once, used by every batch for `freshMs`
 * counted from when the read began (a later write may be missed only by reads that began before
 * it), then read again. Batches that ask while a read is under way share it; a read that fails is
 * not kept (the next batch reads again).
 */
import type { Subscriber } from '../webhook/subscriptions-table';

/** `read` behind a per-sandbox cache of `freshMs` (0: every call reads). */
export function freshSubscribers(
  read: () => Promise<readonly Subscriber[]>,
  freshMs: number,
  now: () => number = Date.now,
): () => Promise<readonly Subscriber[]> {
  let kept: { readonly since: number; readonly list: Promise<readonly Subscriber[]> } | undefined;
  return () => {
    if (kept && now() - kept.since < freshMs) return kept.list;
    const since = now();
    const list = read();
    const entry = { since, list };
    kept = entry;
    list.catch(() => {
      if (kept === entry) kept = undefined;
    });
    return list;
  };
}
