/**
 * SQS's limit on how long a received message may stay invisible: 12 h from the receive (the
 * `ReceiveMessage`) that issued its receipt handle. A `ChangeMessageVisibility` counts from the
 * call, never resets the limit, and is refused when it would end past it (SQS's
 * `InvalidParameterValue`: "Total VisibilityTimeout for the message is beyond the limit"), so
 * 43,200 s asked a moment after a receive fails. The deliverer asks every visibility (a copy's
 * wait for its schedule step, a `Retry-After` hold, our own retry) within what is left; the
 * local queue refuses as SQS does.
 */

/** SQS's longest visibility timeout, 12 h. */
export const MAX_VISIBILITY_SECONDS = 43_200;

/** For the clocks of SQS and Lambda, which are not one, and the time the call takes. */
const MARGIN_SECONDS = 5;

/**
 * The longest visibility, in whole seconds, a received message may be given at `now` (ms).
 * The record does not say when this receive was: `firstReceivedAt`
 * (`ApproximateFirstReceiveTimestamp`, ms) is the first receive's time, this one's on a first
 * receive and earlier on a later one; and while the message is still ours this receive is at
 * most `heldSeconds` old (its visibility timeout, which nothing extended before this change).
 * Counting from the later of the two bounds is never later than the receive itself.
 */
export function visibilityLeftSeconds(
  firstReceivedAt: number | undefined,
  now: number,
  heldSeconds: number,
): number {
  const since =
    firstReceivedAt === undefined || !Number.isFinite(firstReceivedAt)
      ? heldSeconds
      : Math.min(heldSeconds, Math.max(0, (now - firstReceivedAt) / 1000));
  return Math.max(0, Math.floor(MAX_VISIBILITY_SECONDS - MARGIN_SECONDS - since));
}
