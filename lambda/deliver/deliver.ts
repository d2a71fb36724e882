/**
 * One receive of a queued delivery: wait the schedule's delay if this copy was queued with one,
 * else look the subscriber up (gone: nothing to do), sign the body for this attempt with its
 * secrets (two while a rotation overlaps), POST it, and say what the queue should do next. A
 * failure is the receiver's (it spends an attempt: a copy counting one more waits the next
 * delay, or after the last the delivery is dead-lettered) or ours (retried soon, none spent).
 * The batch's gate to the subscriber decides before the POST whether and when it may go (a
 * disabled subscriber gets nothing; over its pace, the delivery waits, spending no attempt) and
 * hears after it what the receiver said (410 disables; `Retry-After` sets the next attempt).
 */
import type { SQSRecord } from 'aws-lambda';
import type { AddressPolicy } from '../webhook/address-policy';
import { OurFailure, ours, ReceiverFailure, type DeliveryFailure } from './failure';
import { parseDeliveryMessage, type DeliveryMessage } from '../webhook/message';
import { post, succeeded } from './post';
import { DNS_DEADLINE_SECONDS, type BatchResolver } from './resolver';
import type { Admission, ReceiverGate } from './receiver-gate';
import { MAX_RETRY_AFTER_SECONDS } from '../webhook/retry-after';
import {
  DELIVERY_TIMEOUT_SECONDS,
  DELIVERY_VISIBILITY_SECONDS,
  HORIZON_SECONDS,
  MAX_ATTEMPTS,
  ourRetrySeconds,
  REFRESH_AT_RECEIVE_COUNT,
  retryDelaySeconds,
} from '../webhook/schedule';
import { signingSecrets, type OpenedSecrets } from '../webhook/secrets';
import { signAll } from '../webhook/signature';
import { visibilityLeftSeconds } from '../webhook/visibility';
import type { SubscriptionsTable } from '../webhook/subscriptions-table';
import type { Narrow } from '../aws/table-definition';
import { DELIVER_GRANTS } from './grants';

/** What a delivery needs. */
export interface DeliverDeps {
  readonly subscriptions: Narrow<SubscriptionsTable, typeof DELIVER_GRANTS.tables.subscriptions>;
  readonly secrets: Narrow<OpenedSecrets, typeof DELIVER_GRANTS.keys.secrets>;
  readonly policy: AddressPolicy;
  /** The batch's resolver (one resolution per host per batch). */
  readonly resolver?: BatchResolver;
  readonly post?: typeof post;
  readonly now?: () => number;
  /**
   * The batch's gate to each subscriber (its pace and health).
   * @default - none: every delivery is attempted at once and nothing is recorded
   */
  readonly gate?: ReceiverGate;
  /** `PLANT_STORE_WEBHOOK_RETRY_SCALE` locally (the horizon scales with it). @default 1 */
  readonly scale?: number;
  /**
   * When (`Date.now()`) the invocation's attempts must have ended: one that could not end by
   * then is not started (our failure: retried soon, no attempt spent).
   * @default - no limit
   */
  readonly attemptsEndBy?: number;
}

/** The longest an attempt takes: its host resolved, then the receiver's answer. */
const ATTEMPT_MAX_MS = (DNS_DEADLINE_SECONDS + DELIVERY_TIMEOUT_SECONDS) * 1000;

/** What the queue does with the received message next. */
export type NextStep =
  /** Delete it (delivered, or its subscriber is gone). */
  | { readonly step: 'done' }
  /** Leave it invisible `seconds`, then receive it again (a wait, or our failure). */
  | { readonly step: 'again-in'; readonly seconds: number }
  /** Queue this copy (the receiver's next attempt), then delete the received one. */
  | { readonly step: 'requeue'; readonly copy: DeliveryMessage }
  /** Move it to the dead-letter queue (the receiver's last attempt failed). */
  | { readonly step: 'dead-letter'; readonly message: DeliveryMessage };

/** What became of one receive, with what its log line says. */
export interface DeliveryOutcome {
  readonly outcome:
    | 'delivered'
    | 'dropped'
    | 'waiting'
    | 'failed'
    | 'dead-lettered'
    | 'unreadable'
    /** The subscriber is disabled: dropped, kept for `enable`'s replay. */
    | 'disabled'
    /** The receiver answered 410: its subscriber is disabled, this delivery kept for `enable`. */
    | 'gone';
  readonly next: NextStep;
  /** Whose failure it was, for `failed` and `dead-lettered`. */
  readonly failure?: DeliveryFailure;
  readonly webhookId?: string;
  readonly subscriberId?: string;
  readonly plantId?: string;
  /** The receiver's attempt (1 to MAX_ATTEMPTS) this receive made or waits for. */
  readonly attempt?: number;
  /** The receiver's host (never the whole URL: its path or query may be a credential). */
  readonly host?: string;
  /** When the attempt started (ISO time, as `webhook attempts` shows it), for one made. */
  readonly startedAt?: string;
}

/**
 * Runs one receive of the delivery a queue message carries. A wait it asks of the queue (a
 * copy's schedule step, a `Retry-After` hold, our own retry) is cut to what SQS still allows
 * this receive: 12 h from it (`visibility.ts`).
 */
export async function deliver(record: SQSRecord, deps: DeliverDeps): Promise<DeliveryOutcome> {
  const message = parseDeliveryMessage(record.body);
  // Not a delivery (only our bug can queue one): the queue's safety net dead-letters it.
  if (!message) return { outcome: 'unreadable', next: { step: 'again-in', seconds: 60 } };
  const clock = deps.now ?? Date.now;
  // When the event's write was stored: where `enable` replays from if this delivery is kept for it.
  const storedAt =
    message.storedAt ?? new Date(Number(record.attributes.SentTimestamp) || clock()).toISOString();
  const outcome = await decide(record, { ...message, storedAt }, deps);
  const { next } = outcome;
  if (next.step !== 'again-in') return outcome;
  const receiveCount = Number(record.attributes.ApproximateReceiveCount) || 1;
  if (outcome.outcome === 'waiting' && receiveCount >= REFRESH_AT_RECEIVE_COUNT) {
    // Waiting spends no attempt, and must not spend the receives of SQS's safety net either: a
    // fresh copy (the same delivery, its attempts unchanged) waits instead, counting from 0.
    const copy = { ...message, storedAt, waitSeconds: next.seconds };
    return { ...outcome, next: { step: 'requeue', copy } };
  }
  const firstReceivedAt = Number(record.attributes.ApproximateFirstReceiveTimestamp) || undefined;
  const left = visibilityLeftSeconds(firstReceivedAt, clock(), DELIVERY_VISIBILITY_SECONDS);
  return next.seconds <= left ? outcome : { ...outcome, next: { ...next, seconds: left } };
}

/** What to do with one receive of `message` (its `storedAt` known). */
async function decide(
  record: SQSRecord,
  message: DeliveryMessage & { readonly storedAt: string },
  deps: DeliverDeps,
): Promise<DeliveryOutcome> {
  const receiveCount = Number(record.attributes.ApproximateReceiveCount) || 1;
  const { webhookId, subscriberId, plantId, body, storedAt, waitSeconds = 0 } = message;
  const attempt = (message.attempt ?? 0) + 1;
  const about = { webhookId, subscriberId, plantId, attempt };
  if (waitSeconds > 0 && receiveCount === 1) {
    return { outcome: 'waiting', next: { step: 'again-in', seconds: waitSeconds }, ...about };
  }
  const clock = deps.now ?? Date.now;
  try {
    // Gated, the gate's answer carries the subscriber (what the sandbox holds, at most 2 s old);
    // without a gate, the batch's lookup.
    const admitted = deps.gate
      ? await ours('reading the subscriber', () => deps.gate!.admit(subscriberId))
      : undefined;
    const admission = admitted && (await atStart(deps.gate!, subscriberId, admitted, clock));
    const subscriber =
      admission === undefined
        ? await ours('reading the subscriber', () => deps.subscriptions.get(subscriberId))
        : admission.verdict === 'go'
          ? admission.subscriber
          : undefined;
    if (admission?.verdict === 'removed' || (!admission && !subscriber)) {
      return { outcome: 'dropped', next: { step: 'done' }, ...about };
    }
    if (admission?.verdict === 'disabled') {
      // Done with only once `enable`'s replay is sure to deliver it.
      const drop = await ours('keeping the delivery for enable', () =>
        deps.gate!.dropped(subscriberId, storedAt),
      );
      if (!drop.kept) {
        return { outcome: 'waiting', next: { step: 'again-in', seconds: drop.seconds }, ...about };
      }
      return { outcome: 'disabled', next: { step: 'done' }, ...about };
    }
    if (admission?.verdict === 'wait') {
      return {
        outcome: 'waiting',
        next: { step: 'again-in', seconds: admission.seconds },
        ...about,
      };
    }
    if (!subscriber) throw new Error('no subscriber to deliver to');
    const now = clock();
    const url = new URL(subscriber.url);
    const secrets = await ours('opening the secret', () =>
      Promise.all(signingSecrets(subscriber, now).map((s) => deps.secrets.open(s, subscriberId))),
    );
    if (deps.attemptsEndBy !== undefined && Date.now() + ATTEMPT_MAX_MS > deps.attemptsEndBy) {
      throw new OurFailure('starting the attempt', 'too little of the invocation is left');
    }
    const timestamp = Math.floor(now / 1000);
    const result = await (deps.post ?? post)(
      url,
      {
        'content-type': 'application/json',
        'user-agent': 'plant-store-webhook/1',
        'webhook-id': webhookId,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signAll(secrets, webhookId, timestamp, body),
        // Informational, not signed: which attempt this is (1 to MAX_ATTEMPTS).
        'webhook-attempt': String(attempt),
      },
      body,
      deps.policy,
      { resolver: deps.resolver },
    );
    const verdict = deps.gate
      ? await ours('disabling the subscriber', () =>
          deps.gate!.report(subscriberId, { webhookId, attempt, storedAt, startedAt: now, result }),
        )
      : undefined;
    const fields = { ...about, host: url.host, startedAt: new Date(now).toISOString() };
    if (succeeded(result)) return { outcome: 'delivered', next: { step: 'done' }, ...fields };
    const failure =
      'status' in result
        ? new ReceiverFailure(`status ${result.status}`, result.status)
        : new ReceiverFailure(result.failure);
    if (verdict?.gone) return { outcome: 'gone', next: { step: 'done' }, failure, ...fields };
    const firstAttemptAt = message.firstAttemptAt ?? now;
    const horizonLeft = (firstAttemptAt + HORIZON_SECONDS * 1000 * (deps.scale ?? 1) - now) / 1000;
    const failed = receiverFailed({ ...message, storedAt, firstAttemptAt }, attempt, failure, {
      delay: verdict?.retryAfterSeconds,
      horizonLeft: horizonLeft / (deps.scale ?? 1),
    });
    // Its attempt number cannot tell the gate: short `Retry-After`s earn attempts past the last.
    if (failed.next.step === 'dead-letter') deps.gate?.gaveUp(subscriberId);
    return { ...failed, ...fields };
  } catch (error) {
    if (!(error instanceof OurFailure)) throw error;
    // Our outage lasts as long whatever the receivers' schedule is scaled to: the local queue
    // scales the wait it is asked for, so a scaled run asks for the real pause over the scale
    // (the safety net's receives must not run out in seconds of a busy machine's stalls).
    const seconds = Math.ceil(ourRetrySeconds(receiveCount) / (deps.scale ?? 1));
    const next = { step: 'again-in', seconds } as const;
    return { outcome: 'failed', next, failure: error, ...about };
  }
}

/**
 * A delivery admitted to start at its slot waits for it, then asks the gate again what the
 * sandbox has heard since (no call): a 410 or a `Retry-After` answered to another delivery
 * meanwhile turns it into a drop or a wait, so none of the batch's later starts is sent.
 */
async function atStart(
  gate: ReceiverGate,
  subscriberId: string,
  admission: Admission,
  clock: () => number,
): Promise<Admission> {
  if (admission.verdict !== 'go') return admission;
  const wait = admission.startAt - clock();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  return gate.atStart(subscriberId, admission.startAt) ?? admission;
}

/**
 * The receiver's attempt `attempt` failed: the next one waits the receiver's `Retry-After` if it
 * sent one, else the schedule's delay. After the last attempt the delivery is dead-lettered, but
 * never sooner than the horizon after its first attempt: `Retry-After`s shorter than the
 * schedule's steps earn it more attempts, each waiting what is left (at most 12 h).
 */
function receiverFailed(
  message: DeliveryMessage,
  attempt: number,
  failure: ReceiverFailure,
  when: { readonly delay?: number; readonly horizonLeft: number },
): Pick<DeliveryOutcome, 'outcome' | 'next' | 'failure'> {
  const { webhookId, subscriberId, plantId, body, storedAt, firstAttemptAt } = message;
  const fresh = { webhookId, subscriberId, plantId, body, ...(storedAt ? { storedAt } : {}) };
  const beforeHorizon = Math.ceil(Math.min(MAX_RETRY_AFTER_SECONDS, when.horizonLeft));
  const delay =
    attempt < MAX_ATTEMPTS
      ? (when.delay ?? retryDelaySeconds(attempt))
      : beforeHorizon > 0
        ? (when.delay ?? beforeHorizon)
        : undefined;
  if (delay === undefined) {
    // A redrive gives it the whole schedule again: the dead letter keeps no count.
    return { outcome: 'dead-lettered', next: { step: 'dead-letter', message: fresh }, failure };
  }
  const copy = { ...fresh, attempt, waitSeconds: delay, firstAttemptAt };
  return { outcome: 'failed', next: { step: 'requeue', copy }, failure };
}
