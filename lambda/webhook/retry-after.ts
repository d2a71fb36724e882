/**
 * A receiver's `Retry-After` (RFC 9110 §10.2.3): delay-seconds or an HTTP date. The deliverer
 * honours it on a 429 or a 503, whatever the schedule's next step, up to SQS's longest
 * visibility timeout (12 h): a longer wait is cut to that, a date already past is 1 s.
 */
import { MAX_VISIBILITY_SECONDS } from './visibility';

/** The longest wait honoured: SQS's maximum visibility timeout, 12 h. */
export const MAX_RETRY_AFTER_SECONDS = MAX_VISIBILITY_SECONDS;

/** The statuses whose `Retry-After` is honoured. */
export const RETRY_AFTER_STATUSES: ReadonlySet<number> = new Set([429, 503]);

/**
 * The whole seconds, from 1 to 12 h, that `value` asks to wait from `now` (ms), or `undefined`
 * when there is no value or it is neither a number of seconds nor an HTTP date.
 */
export function retryAfterSeconds(value: string | undefined, now: number): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  let seconds: number;
  if (/^\d+$/.test(text)) {
    seconds = Number(text);
  } else {
    // IMF-fixdate, and the obsolete forms Date.parse reads too; anything else is unreadable.
    const at = /[A-Za-z]{3}/.test(text) && /GMT|UTC/.test(text) ? Date.parse(text) : NaN;
    if (Number.isNaN(at)) return undefined;
    seconds = Math.ceil((at - now) / 1000);
  }
  return Math.min(MAX_RETRY_AFTER_SECONDS, Math.max(1, seconds));
}
