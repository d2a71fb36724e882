/**
 * `npm run webhook -- add|list|remove|listen|dead-letters`: manages the newPlant webhook's
 * subscribers in the local engine or, with `--aws`, in a deployed subscriptions table; lists and
 * redrives dead letters; runs a receiver. A secret is printed once, on `add`, on stdout alone.
 */
import { SQSClient } from '@aws-sdk/client-sqs';
import { KMSClient } from '@aws-sdk/client-kms';
import { makeDocumentClient } from '../../lambda/shared/dynamodb';
import {
  newSubscriberId,
  SubscriptionsTable,
} from '../../lambda/shared/webhook/subscriptions-table';
import { SUBSCRIPTIONS_TABLE } from '../../lambda/shared/tables';
import {
  kmsSecretBox,
  LOCAL_SECRET_BOX,
  type SecretBox,
} from '../../lambda/shared/webhook/secrets';
import { generateSecret, SECRET_FORMAT } from '../../lambda/shared/webhook/signature';
import { addressRefusal, PUBLIC_ONLY } from '../../lambda/shared/webhook/address-policy';
import {
  commandError,
  failureExitCode,
  integerOption,
  parseCommandLine,
  UsageError,
} from '../cli-args';
import { localCliClientConfig } from '../local/engine';
import { DEFAULT_DB_PORT, localEngineTarget } from '../local/settings';
import { LOCAL_QUEUE_NAMES, localQueueUrl } from '../local/webhooks';
import type { CliIo } from './token-cli';
import { listDeadLetters } from './webhook-dead-letters';
import { listen } from './webhook-listen';

/** `listen`'s default port. */
export const DEFAULT_LISTEN_PORT = 4000;

/** The environment variable `listen` reads the secret from. */
export const SECRET_VARIABLE = 'PLANT_STORE_WEBHOOK_SECRET';

export const WEBHOOK_HELP = `Usage: npm run webhook -- <command> [options]

Commands:
  add --url <url> [--name <label>] [--id sub_<id>]
                       Subscribe a receiver to newPlant. Prints its whsec_ secret alone on
                       stdout (shown this once), its subscriber id on stderr. Deployed, the
                       URL must be https to a public address; locally http is fine. --id
                       (local only) picks the id, e.g. the one events/deliver.json names.
  list                 A header row, then one line per subscriber: subscriberId, name, url,
                       created (tab-separated). Never a secret.
  remove <subscriberId>
                       Unsubscribe. An unknown id is exit code 1.
  dead-letters [--redrive]
                       List the deliveries given up after the last attempt (webhookId,
                       subscriberId, plant id, first sent); --redrive queues them again.
  listen [--port <p>]  A local receiver on 127.0.0.1 (default port ${DEFAULT_LISTEN_PORT}) that verifies each
                       signature and prints each delivery: webhook-id, attempt, body. The
                       secret comes from $${SECRET_VARIABLE} (or --secret <whsec_…>, which
                       your shell history keeps).

Exit codes: 0 done, 1 failed or not found, 2 a usage mistake.

Target (default: npm start's engine at http://127.0.0.1:\${PLANT_STORE_DB_PORT:-${DEFAULT_DB_PORT}}):
  --aws --table <SubscriptionsTableName> [--region <r>]
                       The deployed subscriptions table (a stack output); secrets are
                       encrypted with the KMS key alias/<SubscriptionsTableName>.
  --aws --queue <DeadLetterQueueUrl>
                       The deployed dead-letter queue (a stack output), for dead-letters.
  --help               This text.
`;

const OPTIONS = {
  url: { type: 'string' },
  name: { type: 'string' },
  id: { type: 'string' },
  port: { type: 'string' },
  secret: { type: 'string' },
  redrive: { type: 'boolean' },
  aws: { type: 'boolean' },
  table: { type: 'string' },
  queue: { type: 'string' },
  region: { type: 'string' },
} as const;

interface Target {
  readonly local: boolean;
  readonly where: string;
  readonly endpoint?: string;
  readonly region?: string;
  readonly table?: string;
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
      const listener = await listen({ port, secret, out: io.out, err: io.err });
      io.err(`listening on http://127.0.0.1:${listener.port}/ (Ctrl-C stops)`);
      await (io.stop ?? new Promise<void>(() => undefined));
      await listener.close();
      return 0;
    }
    target = resolveTarget(values, io.env);
    if (command === 'add') {
      noArguments();
      await add(target, values as Record<string, string | undefined>, io);
    } else if (command === 'list') {
      noArguments();
      await list(target, io);
    } else if (command === 'remove') {
      if (rest.length !== 1) throw new UsageError('remove needs exactly one subscriberId');
      if (!(await subscriptions(target).remove(rest[0]!))) {
        throw new Error(`no subscriber with id ${rest[0]} in ${target.where}`);
      }
      io.err(`removed ${rest[0]}; deliveries already queued for it are dropped`);
    } else if (command === 'dead-letters') {
      noArguments();
      await deadLetters(target, values.redrive === true, io);
    } else {
      throw commandError(command, ['add', 'list', 'remove', 'dead-letters', 'listen']);
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
      queue: values.queue as string | undefined,
    };
  }
  if (values.table || values.queue || region)
    throw new UsageError('--table, --queue and --region go with --aws');
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
  const literal = url.hostname.replace(/^\[|\]$/g, '');
  const refused = local
    ? undefined
    : /^[\d.]+$|:/.test(literal) && addressRefusal(literal, PUBLIC_ONLY);
  if (refused) throw new UsageError(`--url: ${refused}`);
  return url;
}

/** `add --id`: a chosen subscriber id, locally only (deployed ids stay random). */
const CHOSEN_ID = /^sub_[\w-]{1,64}$/;

async function add(
  target: Target,
  { url: rawUrl, name, id }: Record<string, string | undefined>,
  io: CliIo,
): Promise<void> {
  const url = subscriberUrl(rawUrl, target.local);
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
  io.out(secret);
  io.err(`subscriberId ${subscriberId}  url ${url.href}  (the secret above is shown this once)`);
}

async function list(target: Target, io: CliIo): Promise<void> {
  const all = await subscriptions(target).list();
  all.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  if (all.length === 0) {
    io.err(`no subscribers in ${target.where}`);
    return;
  }
  io.out(['subscriberId', 'name', 'url', 'created'].join('\t'));
  for (const s of all)
    io.out([s.subscriberId, JSON.stringify(s.name), s.url, s.createdAt].join('\t'));
}

/** `dead-letters` against npm start's queue or, with `--aws --queue`, a deployed one. */
async function deadLetters(target: Target, redrive: boolean, io: CliIo): Promise<void> {
  if (target.local) {
    const client = new SQSClient(localCliClientConfig(target.endpoint!));
    const queueUrl = localQueueUrl(target.endpoint!, LOCAL_QUEUE_NAMES.deadLetters);
    return listDeadLetters({ client, queueUrl, where: 'the local dead-letter queue', redrive, io });
  }
  if (!target.queue) throw new UsageError('dead-letters --aws needs --queue <DeadLetterQueueUrl>');
  const client = new SQSClient(target.region ? { region: target.region } : {});
  return listDeadLetters({ client, queueUrl: target.queue, where: target.queue, redrive, io });
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
