/**
 * The webhook CLI's commands about subscribers themselves: `add` (a URL checked as far as it
 * can be before delivery time, and a secret shown once), `list`, `update --rate|--events`,
 * `remove` and `rotate`.
 */
import { addressRefusal, PUBLIC_ONLY } from '../../../lambda/webhook/address-policy';
import { SUBSCRIBERS_FRESH_SECONDS } from '../../../lambda/webhook/config';
import { sustainedRate } from '../../../lambda/webhook/rate-limit';
import { ROTATION_OVERLAP_SECONDS, type SecretBox } from '../../../lambda/webhook/secrets';
import { generateSecret } from '../../../lambda/webhook/signature';
import type { ReceiverStates } from '../../../lambda/webhook/receiver-state';
import {
  newSubscriberId,
  type SubscriptionsTable,
} from '../../../lambda/webhook/subscriptions-table';
import { parseEvents, type PlantEvent } from '../../../lambda/webhook/events';
import { UsageError } from '../../cli/args';
import type { CliIo } from '../../cli/run';
import { listRows, rateOption, shownUrl } from './receivers';
import { receiverStates, secretBox, subscriptions, type Target } from './target';

/** The URL a subscriber gives, checked as far as it can be before delivery time. */
function subscriberUrl(raw: string | undefined, local: boolean): URL {
  if (raw === undefined) throw new UsageError('add needs --url <url>');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`--url must be an absolute URL, not ${raw}`);
  }
  const allowed = local ? ['http:', 'https:'] : ['https:'];
  if (!allowed.includes(url.protocol)) {
    throw new UsageError(
      `--url must be ${local ? 'http or https' : 'https'}, not ${url.protocol.slice(0, -1)}`,
    );
  }
  if (url.username || url.password)
    throw new UsageError('--url must not carry a user name or password');
  const refused = deployedRefusal(url);
  if (refused && !local) throw new UsageError(`--url: ${refused}`);
  return url;
}

/**
 * Why the deployed deliverer would refuse `url` as far as can be told without resolving it: not
 * https, or an address literal (or `localhost`) that is not public. Locally such a URL is
 * accepted, and `add` says that deployed it would not be.
 */
function deployedRefusal(url: URL): string | undefined {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const literal = host.toLowerCase() === 'localhost' ? '127.0.0.1' : host;
  const address = /^[\d.]+$|:/.test(literal) ? addressRefusal(literal, PUBLIC_ONLY) : undefined;
  if (address) return host === literal ? address : `${host} is not a public address`;
  return url.protocol === 'https:' ? undefined : `${url.protocol.slice(0, -1)} is not https`;
}

/** `--events`: the events chosen, or a usage error in one line. */
function eventsOption(raw: string | undefined): PlantEvent[] | undefined {
  if (raw === undefined) return undefined;
  const events = parseEvents(raw);
  if ('error' in events) throw new UsageError(events.error);
  return events;
}

/** `add --id`: a chosen subscriber id, locally only (deployed ids stay random). */
const CHOSEN_ID = /^sub_[\w-]{1,64}$/;

/** What `add` writes to and how it waits: the target's own, or a test's. */
export interface AddDeps {
  readonly subscriptions: SubscriptionsTable;
  readonly receiverStates: ReceiverStates;
  readonly secretBox: SecretBox;
  /** Resolves after `seconds`. */
  readonly wait: (seconds: number) => Promise<void>;
}

/** The subscriptions table, receivers' state and secret box of `target`, and a real wait. */
function addDeps(target: Target): AddDeps {
  return {
    subscriptions: subscriptions(target),
    receiverStates: receiverStates(target),
    secretBox: secretBox(target),
    wait: (seconds) => new Promise((resolve) => setTimeout(resolve, seconds * 1000)),
  };
}

/**
 * `add --url <url>`: writes the subscriber, prints its secret (stdout, alone) and id at once, then,
 * deployed, waits until every fan-out has read the subscribers again.
 */
export async function add(
  target: Target,
  {
    url: rawUrl,
    name,
    id,
    rate: rawRate,
    events: rawEvents,
    'show-urls': showUrls,
  }: {
    readonly url?: string;
    readonly name?: string;
    readonly id?: string;
    readonly rate?: string;
    readonly events?: string;
    readonly 'show-urls'?: boolean;
  },
  io: CliIo,
  deps?: AddDeps,
): Promise<void> {
  const url = subscriberUrl(rawUrl, target.local);
  const rate = rateOption(rawRate);
  // Without --events the item has none: newPlant only, as every subscriber before events.
  const events = eventsOption(rawEvents);
  if (id !== undefined && !target.local) throw new UsageError('--id goes without --aws');
  if (id !== undefined && !CHOSEN_ID.test(id)) {
    throw new UsageError(`--id must be sub_ and 1 to 64 letters, digits, _ or -, not ${id}`);
  }
  const {
    subscriptions: table,
    receiverStates: states,
    secretBox: box,
    wait,
  } = deps ?? addDeps(target);
  const subscriberId = id ?? newSubscriberId();
  const secret = generateSecret();
  await table.add({
    subscriberId,
    url: url.href,
    name: name?.trim() || url.host,
    createdAt: new Date().toISOString(),
    ...(events ? { events } : {}),
    secret: await box.seal(secret, subscriberId),
  });
  // Shown as soon as it is stored: the subscriber is active from here, and a command that ends
  // now (Ctrl-C, a dropped session, a failure below) must not leave a secret nobody saw.
  io.out(secret);
  io.err(
    `subscriberId ${subscriberId}  url ${showUrls ? url.href : shownUrl(url.href)}  (the secret above is shown this once)`,
  );
  if (rate !== undefined) await states.setRate(subscriberId, rate);
  const refused = target.local ? deployedRefusal(url) : undefined;
  if (refused) {
    io.err(
      `note: npm start delivers to it, but a deployed stack would refuse this URL (${refused}): deployed, a subscriber must be https to a public address`,
    );
  }
  if (!target.local) {
    // Registered once every fan-out sandbox's list was read after the write (locally it reads
    // on every batch): a plant stored after this returns is delivered to the new subscriber.
    const seconds = SUBSCRIBERS_FRESH_SECONDS + 1;
    io.err(
      `registering: every fan-out reads the subscribers at least every ${SUBSCRIBERS_FRESH_SECONDS} s; waiting ${seconds} s (stopping now keeps the subscriber; a plant stored before the wait ends may not reach it)`,
    );
    await wait(seconds);
    io.err(`registered: every plant stored from now on is delivered to ${subscriberId}`);
  }
}

/** `update <id> [--rate <per second>] [--events <names>]`: either or both. */
export async function update(
  target: Target,
  subscriberId: string,
  values: { readonly rate?: string; readonly events?: string },
  io: CliIo,
): Promise<void> {
  const rate = rateOption(values.rate);
  const events = eventsOption(values.events);
  if (rate === undefined && events === undefined) {
    throw new UsageError('update needs --rate <per second> or --events <names>');
  }
  const missing = () => new Error(`no subscriber with id ${subscriberId} in ${target.where}`);
  if (events !== undefined) {
    if (!(await subscriptions(target).setEvents(subscriberId, events))) throw missing();
    // Deployed, each fan-out sandbox reads the subscribers again within its freshness window.
    io.err(
      `${subscriberId} now receives ${events.join(', ')}${target.local ? '' : ` (every fan-out within ${SUBSCRIBERS_FRESH_SECONDS} s)`}`,
    );
  }
  if (rate !== undefined) {
    if (!(await receiverStates(target).setRate(subscriberId, rate))) throw missing();
    io.err(
      `${subscriberId} now receives at most ${rate} requests in any second (a backlog at ${sustainedRate(rate)} a second)`,
    );
  }
}

/** `remove <id>`. */
export async function remove(target: Target, subscriberId: string, io: CliIo): Promise<void> {
  if (!(await subscriptions(target).remove(subscriberId))) {
    throw new Error(`no subscriber with id ${subscriberId} in ${target.where}`);
  }
  io.err(`removed ${subscriberId}; deliveries already queued for it are dropped`);
}

/** `list`: a header row, then one line per subscriber, oldest first; URLs in full if asked. */
export async function list(target: Target, io: CliIo, showUrls = false): Promise<void> {
  const [all, states] = await Promise.all([
    subscriptions(target).list(),
    receiverStates(target).all(),
  ]);
  all.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  if (all.length === 0) {
    io.err(`no subscribers in ${target.where}`);
    return;
  }
  for (const row of listRows(all, states, undefined, showUrls)) io.out(row.join('\t'));
}

/** `rotate <id>`: a new secret; the old one keeps signing for ROTATION_OVERLAP_SECONDS. */
export async function rotate(target: Target, subscriberId: string, io: CliIo): Promise<void> {
  const secret = generateSecret();
  const sealed = await secretBox(target).seal(secret, subscriberId);
  const ends = new Date(Date.now() + ROTATION_OVERLAP_SECONDS * 1000).toISOString();
  if (!(await subscriptions(target).rotate(subscriberId, sealed, ends))) {
    throw new Error(`no subscriber with id ${subscriberId} in ${target.where}`);
  }
  io.out(secret);
  io.err(
    `rotated ${subscriberId}: attempts are signed with the new and the old secret until ${ends}, then with the new one only (the secret above is shown this once)`,
  );
}
