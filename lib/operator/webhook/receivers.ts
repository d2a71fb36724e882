/**
 * The webhook CLI's commands about receivers: how `list` shows each one's state, its rate
 * (`add|update --rate`), `enable` (on again, and every plant stored meanwhile delivered with the
 * `webhook-id` it would have had) and `attempts` (its latest attempts).
 */
import { attemptText } from '../../../lambda/webhook/health';
import {
  currentRate,
  DEFAULT_RATE_PER_SECOND,
  RATE_LIMITS,
} from '../../../lambda/webhook/rate-limit';
import type { ReceiverState, ReceiverStates } from '../../../lambda/webhook/receiver-state';
import type { Subscriber } from '../../../lambda/webhook/subscriptions-table';
import { eventsOfItem } from '../../../lambda/webhook/events';
import { fieldText, UsageError } from '../../cli/args';
import type { CliIo } from '../../cli/run';

/** `--rate`: requests per second, from `RATE_LIMITS.min` to `RATE_LIMITS.max`. */
export function rateOption(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const rate = Number(raw);
  if (!/^\d+(\.\d+)?$/.test(raw.trim()) || !(rate >= RATE_LIMITS.min && rate <= RATE_LIMITS.max)) {
    throw new UsageError(
      `--rate must be a number of requests per second from ${RATE_LIMITS.min} to ${RATE_LIMITS.max}, not ${raw}`,
    );
  }
  return rate;
}

/**
 * A subscriber's state as `list` prints it: `active`, `disabled since <time>: <reason>`, or
 * `active, replay since <time> unfinished` when `enable`'s replay did not queue everything.
 */
export function stateText(state: ReceiverState | undefined): string {
  if (state?.disabledAt) {
    return `disabled since ${state.disabledAt}: ${state.disabledReason ?? 'no reason recorded'}`;
  }
  return state?.replayFrom
    ? `active, replay since ${state.replayFrom} unfinished (run enable again)`
    : 'active';
}

/**
 * `list`'s header and rows, tab-separated: who each subscriber is, a rotation still overlapping
 * (a rotation that has ended is no longer one: empty), its pace, its state, its failures and the
 * events it receives.
 */
/**
 * A subscriber's URL as the CLI shows it unless asked for more (`--show-urls`): its scheme and
 * host, and its path and query as `/…` (a path or a query may be a credential; the deliverer
 * logs only the host too).
 */
export function shownUrl(href: string): string {
  const url = new URL(href);
  const rest = url.pathname + url.search + url.hash;
  return `${url.protocol}//${url.host}${rest === '/' ? '/' : '/…'}`;
}

export function listRows(
  subscribers: readonly Subscriber[],
  states: ReadonlyMap<string, ReceiverState>,
  at = new Date().toISOString(),
  showUrls = false,
): string[][] {
  const header = [
    'subscriberId',
    'name',
    'url',
    'created',
    'rotationEnds',
    'rate',
    'state',
    'failures',
    'events',
  ];
  return [
    header,
    ...subscribers.map((s) => {
      const state = states.get(s.subscriberId);
      const rate = state?.rate ?? DEFAULT_RATE_PER_SECOND;
      const current = state ? currentRate(state) : rate;
      const failures = state?.consecutiveFailures ?? 0;
      return [
        s.subscriberId,
        fieldText(s.name),
        showUrls ? s.url : shownUrl(s.url),
        s.createdAt,
        s.rotationEndsAt && s.rotationEndsAt > at ? s.rotationEndsAt : '',
        current < rate ? `${rate}/s (slowed to ${round(current)}/s)` : `${rate}/s`,
        stateText(state),
        failures === 0
          ? '0'
          : `${failures} in a row since ${new Date(state!.failingSince ?? 0).toISOString()}`,
        eventsOfItem(s.events).join(','),
      ];
    }),
  ];
}

function round(rate: number): string {
  return rate >= 1 ? String(Math.round(rate * 100) / 100) : `1 per ${Math.round(1 / rate)} s`;
}

/** `attempts <id>`: a header, then its latest attempts, newest first. */
export async function printAttempts(
  states: Pick<ReceiverStates, 'recentAttempts'>,
  subscriberId: string,
  where: string,
  io: CliIo,
): Promise<void> {
  const attempts = await states.recentAttempts(subscriberId);
  if (!attempts) throw new Error(`no subscriber with id ${subscriberId} in ${where}`);
  if (attempts.length === 0) {
    io.err(`no attempts recorded for ${subscriberId} yet`);
    return;
  }
  io.out(['at', 'webhookId', 'attempt', 'ms', 'result'].join('\t'));
  for (const a of attempts) {
    const result =
      a.status !== undefined
        ? attemptText({ status: a.status })
        : attemptText({ failure: a.failure ?? '' });
    io.out([a.at, a.webhookId, String(a.attempt), String(a.ms), result].join('\t'));
  }
}

/** Replays the plants stored since a time to one subscriber; answers how many were queued. */
export type ReplayToSubscriber = (since: string, subscriberId: string) => Promise<number>;

/**
 * `enable <id>`: on again; every plant stored since it stopped receiving is queued to it again.
 * The replay point stays on the subscriber until the replay has queued everything: a replay
 * that fails or is interrupted loses nothing, and `enable` again resumes it (what was queued
 * twice comes with one `webhook-id`, which receivers deduplicate).
 */
export async function enable(
  states: Pick<ReceiverStates, 'enable' | 'replayed'>,
  replay: ReplayToSubscriber,
  subscriberId: string,
  where: string,
  io: CliIo,
): Promise<void> {
  const before = await states.enable(subscriberId);
  if (!before) throw new Error(`no subscriber with id ${subscriberId} in ${where}`);
  const since = before.replayFrom ?? before.disabledAt;
  if (!since) {
    io.err(`${subscriberId} was active; nothing to deliver again`);
    return;
  }
  // Enabled first, then replayed: a plant stored in between comes twice, with one webhook-id.
  let queued: number;
  try {
    queued = await replay(since, subscriberId);
  } catch (error) {
    io.err(
      `the replay to ${subscriberId} of the plants stored since ${since} stopped; it is kept: run enable ${subscriberId} again to finish it`,
    );
    throw error;
  }
  await states.replayed(subscriberId, since);
  io.err(
    before.disabledAt
      ? `enabled ${subscriberId} (disabled since ${before.disabledAt}: ${before.disabledReason ?? ''}); ${queued} plant(s) stored since ${since} queued to it again, with the webhook-ids they had`
      : `${subscriberId} was active with a replay left unfinished; ${queued} plant(s) stored since ${since} queued to it again, with the webhook-ids they had`,
  );
}
