/**
 * `npm run webhook -- add|list|remove|rotate|replay|test|dead-letters|listen`: manages the
 * newPlant webhook's subscribers in the local engine or, with `--aws`, in a deployed
 * subscriptions table; rotates a secret; queues plants again; sends one subscriber a test
 * delivery; lists and redrives dead letters; runs a receiver that can forward. A secret is
 * printed once, on `add` or `rotate`, on stdout alone.
 */
import { KMSClient } from '@aws-sdk/client-kms';
import { SQSClient } from '@aws-sdk/client-sqs';
import { makeDocumentClient } from '../../../lambda/aws/dynamodb';
import { newSubscriberId, SubscriptionsTable } from '../../../lambda/webhook/subscriptions-table';
import { PlantsTable } from '../../../lambda/plants/table';
import { PLANTS_TABLE, SUBSCRIPTIONS_TABLE } from '../../../lambda/aws/tables';
import { sqsDeliveryQueue, type DeliveryQueue } from '../../../lambda/webhook/delivery-queue';
import { replay, type ReplayDeps } from './replay';
import { ReceiverStates } from '../../../lambda/webhook/receiver-state';
import { DEFAULT_RATE_PER_SECOND } from '../../../lambda/webhook/rate-limit';
import {
  kmsSecretBox,
  LOCAL_SECRET_BOX,
  ROTATION_OVERLAP_SECONDS,
  type SecretBox,
} from '../../../lambda/webhook/secrets';
import { generateSecret, SECRET_FORMAT } from '../../../lambda/webhook/signature';
import { addressRefusal, PUBLIC_ONLY } from '../../../lambda/webhook/address-policy';
import {
  commandError,
  failureExitCode,
  integerOption,
  parseCommandLine,
  UsageError,
} from '../../cli/args';
import {
  DEFAULT_DB_PORT,
  LOCAL_QUEUE_NAMES,
  localCliClientConfig,
  localEngineTarget,
  localQueueUrl,
} from '../../npm-start/find';
import type { CliIo } from '../token-cli';
import { listDeadLetters } from './dead-letters';
import { listen } from './listen';
import { queueTestDelivery, TEST_WEBHOOK_ID_PREFIX, webhookQueues } from './queues';
import { enable, listRows, printAttempts, rateOption } from './receivers';

/** `listen`'s default port. */
export const DEFAULT_LISTEN_PORT = 4000;

/** The environment variable `listen` reads the secret from. */
export const SECRET_VARIABLE = 'PLANT_STORE_WEBHOOK_SECRET';

export const WEBHOOK_HELP = `Usage: npm run webhook -- <command> [options]

Commands:
  add --url <url> [--name <label>] [--id sub_<id>] [--rate <per second>]
                       Subscribe a receiver to newPlant. Prints its whsec_ secret alone on
                       stdout (shown this once), its subscriber id on stderr. Deployed, the
                       URL must be https to a public address; locally http is fine. --id
                       (local only) picks the id, e.g. the one events/deliver.json names.
                       --rate: requests a second it receives at most (default ${DEFAULT_RATE_PER_SECOND}).
  update <subscriberId> --rate <per second>
                       Change a subscriber's rate; deliveries over it wait, spending no attempt.
  list                 A header row, then one line per subscriber: subscriberId, name, url,
                       created, rotationEnds (empty unless a rotation overlaps), rate, state
                       (active, or disabled since <time>: <reason>) and its failed attempts
                       in a row (tab-separated). Never a secret.
  attempts <subscriberId>
                       Its latest attempts, newest first: time, webhookId, attempt, ms, status
                       or failure (the last 20 are kept on the subscriber).
  enable <subscriberId>
                       Turn a disabled subscriber (410 Gone, or 5 days of failures) back on
                       and deliver it every plant stored meanwhile, with the webhook-ids
                       they would have had. Deployed, it needs --plants-table and --queue
                       as replay does.
  remove <subscriberId>
                       Unsubscribe. An unknown id is exit code 1.
  rotate <subscriberId>
                       A new secret, printed alone on stdout (shown this once). For 24 h
                       every attempt is signed with both (webhook-signature: v1,<new>
                       v1,<old>), then with the new one only; list shows when.
  replay --since <ISO time> [--until <ISO time>] [--subscriber <subscriberId>]
                       Queue again the newPlant of every plant stored since then, to each
                       subscriber registered when it was stored (or to one), with the
                       webhook-id its first delivery had: receivers deduplicate. Run it
                       after a stream-failure alarm or when a receiver lost data.
  test <subscriberId>  Queue one signed example delivery for that subscriber: the example
                       NewPlant (${'{'}"id":9007199254740993,...}, a plant that was not stored)
                       under a webhook-id starting ${TEST_WEBHOOK_ID_PREFIX}, which is signed like any
                       other, so a receiver can tell a test. Delivered, retried and
                       dead-lettered like any delivery.
  dead-letters [--redrive [<webhookId>]]
                       A header row, then the deliveries given up after the last attempt
                       (webhookId, subscriberId, plantId, deadSince); --redrive queues them
                       all again, --redrive <webhookId> only that one.
  listen [--port <p>] [--forward-to <url>]
                       A local receiver on 127.0.0.1 (default port ${DEFAULT_LISTEN_PORT}) that verifies each
                       signature and prints each delivery: webhook-id, attempt, body. The
                       secret comes from $${SECRET_VARIABLE} (or --secret <whsec_…>, which
                       your shell history keeps). --forward-to sends each verified delivery
                       on, the same bytes and headers, prints the receiver's answer and
                       answers with its status (a delivery that fails to verify is not sent).

Exit codes: 0 done, 1 failed or not found, 2 a usage mistake.

Target (default: npm start's engine at http://127.0.0.1:\${PLANT_STORE_DB_PORT:-${DEFAULT_DB_PORT}}):
  --aws --table <SubscriptionsTableName> [--region <r>]
                       The deployed subscriptions table (a stack output); secrets are
                       encrypted with the KMS key alias/<SubscriptionsTableName>.
  --aws --queue <DeadLetterQueueUrl>
                       The deployed dead-letter queue (a stack output), for dead-letters
                       and test (which queues on the delivery queue behind it).
  --aws --table <SubscriptionsTableName> --plants-table <PlantsTableName>
        --queue <DeliveryQueueUrl>
                       For replay: the deployed tables and delivery queue (stack outputs).
  --help               This text.
`;

const OPTIONS = {
  url: { type: 'string' },
  name: { type: 'string' },
  id: { type: 'string' },
  port: { type: 'string' },
  secret: { type: 'string' },
  'forward-to': { type: 'string' },
  redrive: { type: 'boolean' },
  rate: { type: 'string' },
  aws: { type: 'boolean' },
  table: { type: 'string' },
  'plants-table': { type: 'string' },
  queue: { type: 'string' },
  since: { type: 'string' },
  until: { type: 'string' },
  subscriber: { type: 'string' },
  region: { type: 'string' },
} as const;

interface Target {
  readonly local: boolean;
  readonly where: string;
  readonly endpoint?: string;
  readonly region?: string;
  readonly table?: string;
  readonly plantsTable?: string;
  readonly queue?: string;
  /** Locally: what to say when the engine cannot be reached. */
  readonly unreachable?: string;
}

/** Runs the CLI and returns its exit code (`listen` returns once it is closed); never throws. */
export async function runWebhookCli(
  argv: readonly string[],
  io: CliIo & { readonly stop?: Promise<void> },
): Promise<number> {
  let target: Target | undefined;
  try {
    const { values, positionals, help } = parseCommandLine(argv, OPTIONS, true);
    const [command, ...rest] = positionals;
    if (help || command === 'help') {
      io.out(WEBHOOK_HELP);
      return 0;
    }
    const noArguments = () => {
      if (rest.length > 0) throw new UsageError(`unexpected argument ${rest[0]}`);
    };
    if (command === 'listen') {
      noArguments();
      const secret = (values.secret as string | undefined) ?? io.env[SECRET_VARIABLE];
      if (!secret)
        throw new UsageError(`listen needs the secret in $${SECRET_VARIABLE} (or --secret)`);
      if (!SECRET_FORMAT.test(secret))
        throw new UsageError('the secret must be whsec_ and 32 bytes of base64, as add printed it');
      const port = integerOption(values.port, 'port', DEFAULT_LISTEN_PORT, 0, 65535);
      const forwardTo = forwardUrl(values['forward-to'] as string | undefined);
      const listener = await listen({ port, secret, forwardTo, out: io.out, err: io.err });
      io.err(
        `listening on http://127.0.0.1:${listener.port}/${forwardTo ? `, forwarding to ${forwardTo.href}` : ''} (Ctrl-C stops)`,
      );
      await (io.stop ?? new Promise<void>(() => undefined));
      await listener.close();
      return 0;
    }
    target = resolveTarget(values, io.env);
    if (command === 'add') {
      noArguments();
      await add(target, values as Record<string, string | undefined>, io);
    } else if (command === 'update') {
      if (rest.length !== 1) throw new UsageError('update needs exactly one subscriberId');
      const rate = rateOption(values.rate as string | undefined);
      if (rate === undefined) throw new UsageError('update needs --rate <per second>');
      if (!(await receiverStates(target).setRate(rest[0]!, rate))) {
        throw new Error(`no subscriber with id ${rest[0]} in ${target.where}`);
      }
      io.err(`${rest[0]} now receives at most ${rate} requests a second`);
    } else if (command === 'list') {
      noArguments();
      await list(target, io);
    } else if (command === 'attempts') {
      if (rest.length !== 1) throw new UsageError('attempts needs exactly one subscriberId');
      await printAttempts(receiverStates(target), rest[0]!, target.where, io);
    } else if (command === 'enable') {
      if (rest.length !== 1) throw new UsageError('enable needs exactly one subscriberId');
      const deps = replayDependencies(target, 'enable');
      await enable(
        receiverStates(target),
        async (since, subscriberId) =>
          (await replay({ since: new Date(since), subscriberId }, deps)).queued,
        rest[0]!,
        target.where,
        io,
      );
    } else if (command === 'remove') {
      if (rest.length !== 1) throw new UsageError('remove needs exactly one subscriberId');
      if (!(await subscriptions(target).remove(rest[0]!))) {
        throw new Error(`no subscriber with id ${rest[0]} in ${target.where}`);
      }
      io.err(`removed ${rest[0]}; deliveries already queued for it are dropped`);
    } else if (command === 'rotate') {
      if (rest.length !== 1) throw new UsageError('rotate needs exactly one subscriberId');
      await rotate(target, rest[0]!, io);
    } else if (command === 'replay') {
      noArguments();
      await replayCommand(target, values as Record<string, string | undefined>, io);
    } else if (command === 'test') {
      if (rest.length !== 1) throw new UsageError('test needs exactly one subscriberId');
      await sendTest(target, rest[0]!, io);
    } else if (command === 'dead-letters') {
      if (rest.length > (values.redrive ? 1 : 0)) {
        throw new UsageError(`unexpected argument ${rest.at(-1)}`);
      }
      const redrive = values.redrive
        ? rest[0] === undefined
          ? 'all'
          : { webhookId: rest[0] }
        : undefined;
      await deadLetters(target, redrive, io);
    } else {
      throw commandError(command, [
        'add',
        'update',
        'list',
        'remove',
        'attempts',
        'enable',
        'rotate',
        'replay',
        'test',
        'dead-letters',
        'listen',
      ]);
    }
    return 0;
  } catch (caught) {
    return failureExitCode('webhook', caught, (error) => describe(error, target), io.err);
  }
}

function resolveTarget(
  values: Record<string, string | boolean | undefined>,
  env: NodeJS.ProcessEnv,
): Target {
  const region = values.region as string | undefined;
  if (values.aws) {
    return {
      local: false,
      where: 'AWS',
      region,
      table: values.table as string | undefined,
      plantsTable: values['plants-table'] as string | undefined,
      queue: values.queue as string | undefined,
    };
  }
  if (values.table || values['plants-table'] || values.queue || region)
    throw new UsageError('--table, --plants-table, --queue and --region go with --aws');
  const { endpoint, where, unreachable } = localEngineTarget(env);
  return { local: true, where, endpoint, unreachable };
}

function subscriptions(target: Target): SubscriptionsTable {
  if (target.local) {
    const client = makeDocumentClient(localCliClientConfig(target.endpoint!));
    return new SubscriptionsTable(client, SUBSCRIPTIONS_TABLE.localName);
  }
  if (!target.table) throw new UsageError('--aws needs --table <SubscriptionsTableName>');
  return new SubscriptionsTable(
    makeDocumentClient(target.region ? { region: target.region } : {}),
    target.table,
  );
}

function receiverStates(target: Target): ReceiverStates {
  if (target.local) {
    const client = makeDocumentClient(localCliClientConfig(target.endpoint!));
    return new ReceiverStates(client, SUBSCRIPTIONS_TABLE.localName);
  }
  if (!target.table) throw new UsageError('--aws needs --table <SubscriptionsTableName>');
  return new ReceiverStates(
    makeDocumentClient(target.region ? { region: target.region } : {}),
    target.table,
  );
}

function secretBox(target: Target): SecretBox {
  if (target.local) return LOCAL_SECRET_BOX;
  return kmsSecretBox(
    `alias/${target.table}`,
    new KMSClient(target.region ? { region: target.region } : {}),
  );
}

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

/** `listen --forward-to`: where verified deliveries go on to (any http(s) URL, loopback too). */
function forwardUrl(raw: string | undefined): URL | undefined {
  if (raw === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`--forward-to must be an absolute http(s) URL, not ${raw}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`--forward-to must be http or https, not ${url.protocol.slice(0, -1)}`);
  }
  return url;
}

/** `add --id`: a chosen subscriber id, locally only (deployed ids stay random). */
const CHOSEN_ID = /^sub_[\w-]{1,64}$/;

async function add(
  target: Target,
  { url: rawUrl, name, id, rate: rawRate }: Record<string, string | undefined>,
  io: CliIo,
): Promise<void> {
  const url = subscriberUrl(rawUrl, target.local);
  const rate = rateOption(rawRate);
  if (id !== undefined && !target.local) throw new UsageError('--id goes without --aws');
  if (id !== undefined && !CHOSEN_ID.test(id)) {
    throw new UsageError(`--id must be sub_ and 1 to 64 letters, digits, _ or -, not ${id}`);
  }
  const table = subscriptions(target);
  const subscriberId = id ?? newSubscriberId();
  const secret = generateSecret();
  await table.add({
    subscriberId,
    url: url.href,
    name: name?.trim() || url.host,
    createdAt: new Date().toISOString(),
    secret: await secretBox(target).seal(secret, subscriberId),
  });
  if (rate !== undefined) await receiverStates(target).setRate(subscriberId, rate);
  io.out(secret);
  io.err(`subscriberId ${subscriberId}  url ${url.href}  (the secret above is shown this once)`);
  const refused = target.local ? deployedRefusal(url) : undefined;
  if (refused) {
    io.err(
      `note: npm start delivers to it, but a deployed stack would refuse this URL (${refused}): deployed, a subscriber must be https to a public address`,
    );
  }
}

/** `test <subscriberId>`: one example delivery queued for an existing subscriber. */
async function sendTest(target: Target, subscriberId: string, io: CliIo): Promise<void> {
  if (!target.local && !target.queue) {
    throw new UsageError(
      'test --aws needs --table <SubscriptionsTableName> and --queue <DeadLetterQueueUrl>',
    );
  }
  if (!(await subscriptions(target).get(subscriberId))) {
    throw new Error(`no subscriber with id ${subscriberId} in ${target.where}`);
  }
  const message = await queueTestDelivery(target, subscriberId);
  io.out(message.webhookId);
  io.err(
    `queued a test delivery for ${subscriberId}: webhook-id ${message.webhookId}, body ${message.body} (an example, not a stored plant)`,
  );
}

async function list(target: Target, io: CliIo): Promise<void> {
  const [all, states] = await Promise.all([
    subscriptions(target).list(),
    receiverStates(target).all(),
  ]);
  all.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  if (all.length === 0) {
    io.err(`no subscribers in ${target.where}`);
    return;
  }
  const now = new Date().toISOString();
  const [header, ...rows] = listRows(all, states);
  io.out(
    ['subscriberId', 'name', 'url', 'created', 'rotationEnds', ...header!.slice(4)].join('\t'),
  );
  all.forEach((s, i) => {
    // A rotation that has ended is no longer one: only an overlap still running is shown.
    const ends = s.rotationEndsAt && s.rotationEndsAt > now ? s.rotationEndsAt : '';
    io.out([...rows[i]!.slice(0, 4), ends, ...rows[i]!.slice(4)].join('\t'));
  });
}

/** `rotate <id>`: a new secret; the old one keeps signing for ROTATION_OVERLAP_SECONDS. */
async function rotate(target: Target, subscriberId: string, io: CliIo): Promise<void> {
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
async function replayCommand(
  target: Target,
  values: Record<string, string | undefined>,
  io: CliIo,
): Promise<void> {
  const since = timeOption(values.since, 'since');
  if (!since) throw new UsageError('replay needs --since <ISO time>');
  const until = timeOption(values.until, 'until');
  const subscriber = values.subscriber;
  const { plants, queued, beforeSubscribers } = await replay(
    { since, until, subscriberId: subscriber },
    replayDependencies(target, 'replay'),
  );
  const range = `since ${since.toISOString()}${until ? ` until ${until.toISOString()}` : ''}`;
  const skipped =
    beforeSubscribers === 0
      ? ''
      : `; ${counted(beforeSubscribers, 'plant')} stored before ${subscriber ?? 'any subscriber'} was added, not queued`;
  io.err(
    `queued ${counted(queued, 'delivery', 'deliveries')} of ${counted(plants, 'plant')} stored ${range} (with their first webhook-ids)${skipped}`,
  );
}

/** `1 plant`, `2 plants`. */
function counted(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** What a replay reads and where it queues: npm start's, or the deployed tables and queue. */
function replayDependencies(target: Target, command: string): ReplayDeps {
  const subscriptionsTable = subscriptions(target);
  let plantsTable: PlantsTable;
  let queue: DeliveryQueue;
  if (target.local) {
    const config = localCliClientConfig(target.endpoint!);
    plantsTable = new PlantsTable(makeDocumentClient(config), PLANTS_TABLE.localName);
    const url = localQueueUrl(target.endpoint!, LOCAL_QUEUE_NAMES.deliveries);
    queue = sqsDeliveryQueue(url, new SQSClient(config));
  } else {
    if (!target.plantsTable || !target.queue) {
      throw new UsageError(
        `${command} --aws needs --table <SubscriptionsTableName> --plants-table <PlantsTableName> --queue <DeliveryQueueUrl>`,
      );
    }
    const config = target.region ? { region: target.region } : {};
    plantsTable = new PlantsTable(makeDocumentClient(config), target.plantsTable);
    queue = sqsDeliveryQueue(target.queue, new SQSClient(config));
  }
  return { plants: plantsTable, subscribers: () => subscriptionsTable.list(), queue };
}

/** `dead-letters` against npm start's queue or, with `--aws --queue`, a deployed one. */
async function deadLetters(
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

/** One line that says what went wrong, without a stack. */
function describe(error: unknown, target: Target | undefined): string {
  const { name, code, message } = (error ?? {}) as {
    name?: string;
    code?: string;
    message?: string;
  };
  if (name === 'ConditionalCheckFailedException')
    return 'that subscriber id is taken (remove it first, or choose another --id)';
  if (name === 'ResourceNotFoundException')
    return 'the subscriptions table does not exist (npm start creates it)';
  if (name === 'QueueDoesNotExist' || /queue does not exist/i.test(message ?? '')) {
    return 'the queue does not exist (locally, the queues live in npm start or npm run db: is one running?)';
  }
  if (code === 'ECONNREFUSED' || name === 'TimeoutError')
    return target?.unreachable ?? 'cannot reach the engine';
  if (name === 'CredentialsProviderError') return `no AWS credentials: ${message}`;
  return message || String(error);
}
