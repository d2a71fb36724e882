/**
 * An SQS standard queue in memory, as the local runtime's delivery queue and dead-letter queue:
 * visibility timeouts, receive counts and the move to the dead-letter queue once a message has
 * been received `maxReceiveCount` times. Delays asked through `changeVisibility` (the deliver
 * function's retry schedule), and the wait of a message its invocation did not settle, are
 * multiplied by `scale`, so tests can run the schedule fast; a change that would end past SQS's
 * 12 h from the receive is refused, as SQS refuses it. That rule is judged on the seconds asked
 * plus the real seconds since the receive, scaled or not: the scale shortens the waits, not the
 * arithmetic a deployed deliverer must get right.
 */
import { createHash, randomUUID } from 'node:crypto';
import { MAX_VISIBILITY_SECONDS } from '../../../lambda/webhook/visibility';

/** The longest delay `setTimeout` keeps (about 24.8 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** One message. */
export interface QueueMessage {
  readonly messageId: string;
  readonly body: string;
  readonly md5OfBody: string;
  readonly sentAt: number;
  receiveCount: number;
  firstReceivedAt?: number;
  /** When the receive that issued `receiptHandle` was (epoch ms). */
  receivedAt?: number;
  /** Whether `changeVisibility` changed the visibility since that receive. */
  visibilityChanged?: boolean;
  receiptHandle?: string;
  visibleAt: number;
}

/** How a queue behaves. */
export interface LocalQueueOptions {
  readonly name: string;
  readonly url: string;
  readonly arn: string;
  readonly visibilityTimeoutSeconds: number;
  /** Multiplies the delays of `changeVisibility` and an unsettled message's wait. @default 1 */
  readonly scale?: number;
  readonly deadLetter?: { readonly queue: LocalQueue; readonly maxReceiveCount: number };
}

/** An in-memory SQS queue. */
export class LocalQueue {
  private readonly messages = new Map<string, QueueMessage>();
  private readonly listeners = new Set<() => void>();
  private timer: NodeJS.Timeout | undefined;

  constructor(readonly options: LocalQueueOptions) {}

  get name(): string {
    return this.options.name;
  }

  /** Calls `listener` whenever a message may have become visible. */
  onAvailable(listener: () => void): () => void {
    this.listeners.add(listener);
    this.schedule();
    return () => this.listeners.delete(listener);
  }

  /** How many listen for a message now (the event source's poller, long-polling receives). */
  listening(): number {
    return this.listeners.size;
  }

  /** Queues a message; answers its id. */
  send(body: string, message?: Partial<QueueMessage>): QueueMessage {
    const queued: QueueMessage = {
      messageId: message?.messageId ?? randomUUID(),
      body,
      md5OfBody: createHash('md5').update(body).digest('hex'),
      sentAt: message?.sentAt ?? Date.now(),
      receiveCount: message?.receiveCount ?? 0,
      visibleAt: Date.now(),
    };
    this.messages.set(queued.messageId, queued);
    // Visible at once: the listeners hear of it; the timer (to the next one that becomes
    // visible later) is unchanged, so a send costs no walk over the queue.
    for (const listener of this.listeners) listener();
    return queued;
  }

  /**
   * Up to `max` visible messages, each made invisible for `visibilitySeconds` (not scaled;
   * `unsettled` cuts it to `scale` times its length, from the receive); a message already
   * received `maxReceiveCount` times goes to the dead-letter queue instead.
   */
  receive(max: number, visibilitySeconds = this.options.visibilityTimeoutSeconds): QueueMessage[] {
    const now = Date.now();
    const received: QueueMessage[] = [];
    for (const message of this.messages.values()) {
      if (received.length >= max) break;
      if (message.visibleAt > now) continue;
      const deadLetter = this.options.deadLetter;
      if (deadLetter && message.receiveCount >= deadLetter.maxReceiveCount) {
        this.messages.delete(message.messageId);
        deadLetter.queue.send(message.body, message);
        continue;
      }
      message.receiveCount++;
      message.firstReceivedAt ??= now;
      message.receivedAt = now;
      message.receiptHandle = randomUUID();
      message.visibleAt = now + visibilitySeconds * 1000;
      message.visibilityChanged = false;
      received.push(message);
    }
    // Timed from the receive's own clock: a message that became visible since was not taken,
    // and the timer must still wake the listeners for it.
    this.schedule(now);
    return received;
  }

  /** Deletes a received message; false when the handle is unknown. */
  delete(receiptHandle: string): boolean {
    const message = this.byHandle(receiptHandle);
    if (!message) return false;
    this.messages.delete(message.messageId);
    return true;
  }

  /**
   * Makes a received message visible after `seconds` × `scale`: `changed`; `unknown` when the
   * handle is not the message's current one; `beyond-limit`, nothing changed, when `seconds`
   * from now would end past 12 h from the receive that issued the handle.
   */
  changeVisibility(receiptHandle: string, seconds: number): 'changed' | 'unknown' | 'beyond-limit' {
    const message = this.byHandle(receiptHandle);
    if (!message) return 'unknown';
    const now = Date.now();
    if (now + seconds * 1000 > (message.receivedAt ?? now) + MAX_VISIBILITY_SECONDS * 1000) {
      return 'beyond-limit';
    }
    message.visibleAt = now + Math.ceil(seconds * 1000 * (this.options.scale ?? 1));
    message.visibilityChanged = true;
    this.changed();
    return 'changed';
  }

  /**
   * What the mapping does with the messages an invocation did not settle: those of a failed
   * invocation (a timeout, a crash, an error) and those it reported failed
   * (`batchItemFailures`). Nothing, as on Lambda, so each comes back when its receive's
   * visibility timeout ends, but that timeout scaled like `changeVisibility`'s delays. The
   * invocation has given its answer: the pool killed a sandbox that timed out or crashed, and a
   * handler that answered runs nothing more for the batch. A message whose handle is no longer
   * its own, or whose visibility the invocation changed itself, is left as it is.
   */
  unsettled(receiptHandles: readonly string[]): void {
    const scale = this.options.scale ?? 1;
    for (const handle of receiptHandles) {
      const message = this.byHandle(handle);
      if (!message || message.receivedAt === undefined || message.visibilityChanged) continue;
      const { receivedAt, visibleAt } = message;
      message.visibleAt = receivedAt + Math.ceil((visibleAt - receivedAt) * scale);
    }
    this.changed();
  }

  /** Moves every message to `target` as new (receive count 0): a redrive. */
  moveAllTo(target: LocalQueue): number {
    const moved = [...this.messages.values()];
    this.messages.clear();
    for (const message of moved) target.send(message.body, { messageId: message.messageId });
    return moved.length;
  }

  /**
   * Messages visible now, and in flight (received, not yet visible again); and since when the
   * longest-visible message has been visible (`undefined` when none is).
   */
  counts(): {
    readonly visible: number;
    readonly invisible: number;
    readonly visibleSince: number | undefined;
  } {
    const now = Date.now();
    let visible = 0;
    let visibleSince: number | undefined;
    for (const { visibleAt } of this.messages.values()) {
      if (visibleAt > now) continue;
      visible++;
      if (visibleSince === undefined || visibleAt < visibleSince) visibleSince = visibleAt;
    }
    return { visible, invisible: this.messages.size - visible, visibleSince };
  }

  /** Stops the timer (the queue's messages are lost with the process). */
  close(): void {
    clearTimeout(this.timer);
    this.listeners.clear();
  }

  private byHandle(receiptHandle: string): QueueMessage | undefined {
    for (const message of this.messages.values()) {
      if (message.receiptHandle === receiptHandle) return message;
    }
    return undefined;
  }

  /**
   * The timer first, then the listeners. The other way round lost a wake-up: a listener found
   * a message not yet visible, the clock passed its time before the timer was set, and the timer
   * was then set to nothing, the message being visible; nobody polled it again. Now a message
   * that becomes visible between the two is seen by a listener or wakes the timer.
   */
  private changed(): void {
    this.schedule();
    for (const listener of this.listeners) listener();
  }

  /**
   * A timer to the next message that becomes visible after `now`, so that listeners hear of it
   * (at once, if that time has passed meanwhile).
   */
  private schedule(now = Date.now()): void {
    clearTimeout(this.timer);
    if (this.listeners.size === 0) return;
    let next = Infinity;
    for (const message of this.messages.values()) {
      if (message.visibleAt > now) next = Math.min(next, message.visibleAt);
    }
    if (next === Infinity) return;
    // Node runs a delay past 2^31 - 1 ms at once (and warns): a far-off message would make the
    // timer fire every millisecond. The wait is cut at the cap and scheduled again from there.
    const wait = Math.max(1, next - Date.now() + 1);
    this.timer = setTimeout(() => this.changed(), Math.min(wait, MAX_TIMER_MS));
    this.timer.unref();
  }
}
