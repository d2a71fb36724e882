/**
 * The webhook CLI's commands that queue deliveries: `replay` (plants stored since a time, again,
 * with their first webhook-ids), `test` (one example delivery) and `dead-letters` (list and
 * redrive what was given up).
 */
import { UsageError } from '../../cli/args';
import type { CliIo } from '../../cli/run';
import { listDeadLetters } from './dead-letters';
import { queueTestDelivery, webhookQueues } from './queues';
import { replay, replayNotes } from './replay';
import { replayDependencies, subscriptions, type Target } from './target';

/** `test <subscriberId>`: one example delivery queued for an existing subscriber. */
export async function sendTest(target: Target, subscriberId: string, io: CliIo): Promise<void> {
  if (!target.local && !target.queue) {
    throw new UsageError(
      'test --aws needs --table <SubscriptionsTableName> and --queue <DeadLetterQueueUrl>',
    );
  }
  const subscriber = await subscriptions(target).get(subscriberId);
  if (!subscriber) throw new Error(`no subscriber with id ${subscriberId} in ${target.where}`);
  const message = await queueTestDelivery(target, subscriber);
  io.out(message.webhookId);
  io.err(
    `queued a test delivery for ${subscriberId}: webhook-id ${message.webhookId}, body ${message.body} (an example, not a stored plant)`,
  );
}

/** An ISO time option as a Date, or a usage error that names the option. */
function timeOption(raw: string | undefined, name: string): Date | undefined {
  if (raw === undefined) return undefined;
  const time = new Date(raw);
  if (!/^\d{4}-\d{2}-\d{2}/.test(raw) || Number.isNaN(time.getTime())) {
    throw new UsageError(`--${name} must be an ISO time such as 2026-01-31T12:00:00Z, not ${raw}`);
  }
  return time;
}

/** `replay --since <time>`: queues the plants stored since then again, with their first ids. */
export async function replayCommand(
  target: Target,
  values: { readonly since?: string; readonly until?: string; readonly subscriber?: string },
  io: CliIo,
): Promise<void> {
  const since = timeOption(values.since, 'since');
  if (!since) throw new UsageError('replay needs --since <ISO time>');
  const until = timeOption(values.until, 'until');
  const subscriber = values.subscriber;
  const result = await replay(
    { since, until, subscriberId: subscriber },
    replayDependencies(target, 'replay'),
  );
  const { plants, queued, beforeSubscribers } = result;
  const range = `since ${since.toISOString()}${until ? ` until ${until.toISOString()}` : ''}`;
  const skipped =
    beforeSubscribers === 0
      ? ''
      : `; ${counted(beforeSubscribers, 'plant')} stored before ${subscriber ?? 'any subscriber'} was added, not queued`;
  io.err(
    `queued ${counted(queued, 'delivery', 'deliveries')} of ${counted(plants, 'plant')} stored ${range} (with their first webhook-ids)${skipped}`,
  );
  for (const note of replayNotes(result)) io.err(note);
}

/** `1 plant`, `2 plants`. */
function counted(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** `dead-letters` against npm start's queue or, with `--aws --queue`, a deployed one. */
export async function deadLetters(
  target: Target,
  redrive: 'all' | { readonly webhookId: string } | undefined,
  io: CliIo,
): Promise<void> {
  if (!target.local && !target.queue) {
    throw new UsageError('dead-letters --aws needs --queue <DeadLetterQueueUrl>');
  }
  const queues = webhookQueues(target);
  return listDeadLetters({
    client: queues.client,
    queueUrl: queues.deadLetters,
    where: target.local ? 'the local dead-letter queue' : target.queue!,
    redrive,
    deliveryQueueUrl: queues.deliveries,
    io,
  });
}
