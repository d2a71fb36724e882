/**
 * `npm run webhook -- add|update|list|attempts|enable|remove|rotate|replay|test|dead-letters|
 * listen`: manages the webhook's subscribers (and the events each receives) in the local engine or, with `--aws`, in a
 * deployed subscriptions table; rotates a secret; queues plants again; sends one subscriber a
 * test delivery; lists and redrives dead letters; runs a receiver that can forward. A secret is
 * printed once, on `add` or `rotate`, on stdout alone. This file reads the command line and
 * hands each command to its module.
 */
import { commandError, parseCommandLine, UsageError } from '../../cli/args';
import { failureExitCode, type CliIo } from '../../cli/run';
import { WEBHOOK_HELP } from './help';
import { listenCommand } from './listen';
import { enable, printAttempts } from './receivers';
import { deadLetters, replayCommand, sendTest } from './redelivery';
import { replay, replayNotes } from './replay';
import { add, list, remove, rotate, update } from './subscribers';
import {
  missingTable,
  receiverStates,
  replayDependencies,
  resolveTarget,
  type Target,
} from './target';

export { DEFAULT_LISTEN_PORT, SECRET_VARIABLE, WEBHOOK_HELP } from './help';

const OPTIONS = {
  url: { type: 'string' },
  name: { type: 'string' },
  id: { type: 'string' },
  port: { type: 'string' },
  'forward-to': { type: 'string' },
  'show-urls': { type: 'boolean' },
  redrive: { type: 'boolean' },
  rate: { type: 'string' },
  events: { type: 'string' },
  aws: { type: 'boolean' },
  table: { type: 'string' },
  'plants-table': { type: 'string' },
  queue: { type: 'string' },
  since: { type: 'string' },
  until: { type: 'string' },
  subscriber: { type: 'string' },
  region: { type: 'string' },
} as const;

type Values = ReturnType<typeof parseCommandLine<typeof OPTIONS>>['values'];

/** What a command is given: its arguments after the command's name, the options, where, how. */
interface Call {
  readonly rest: readonly string[];
  readonly values: Values;
  readonly target: Target;
  readonly io: CliIo;
}

/** The one subscriberId a command takes, or a usage error that says so. */
function subscriberIdOf(command: string, rest: readonly string[]): string {
  if (rest.length !== 1) throw new UsageError(`${command} needs exactly one subscriberId`);
  return rest[0]!;
}

/** No argument after the command's name. */
function noArguments(rest: readonly string[]): void {
  if (rest.length > 0) throw new UsageError(`unexpected argument ${rest[0]}`);
}

/** Every command but `listen` (which needs no target), in the order `--help` names them. */
const COMMANDS: Readonly<Record<string, (call: Call) => Promise<void>>> = {
  add: async ({ rest, values, target, io }) => {
    noArguments(rest);
    await add(target, values, io);
  },
  update: ({ rest, values, target, io }) =>
    update(target, subscriberIdOf('update', rest), values, io),
  list: async ({ rest, values, target, io }) => {
    noArguments(rest);
    await list(target, io, values['show-urls'] === true);
  },
  remove: ({ rest, target, io }) => remove(target, subscriberIdOf('remove', rest), io),
  attempts: ({ rest, target, io }) =>
    printAttempts(receiverStates(target), subscriberIdOf('attempts', rest), target.where, io),
  enable: async ({ rest, target, io }) => {
    const subscriberId = subscriberIdOf('enable', rest);
    const deps = replayDependencies(target, 'enable');
    await enable(
      receiverStates(target),
      async (since, subscriber) => {
        const result = await replay({ since: new Date(since), subscriberId: subscriber }, deps);
        for (const note of replayNotes(result)) io.err(note);
        return result.queued;
      },
      subscriberId,
      target.where,
      io,
    );
  },
  rotate: ({ rest, target, io }) => rotate(target, subscriberIdOf('rotate', rest), io),
  replay: async ({ rest, values, target, io }) => {
    noArguments(rest);
    await replayCommand(target, values, io);
  },
  test: ({ rest, target, io }) => sendTest(target, subscriberIdOf('test', rest), io),
  'dead-letters': async ({ rest, values, target, io }) => {
    if (rest.length > (values.redrive ? 1 : 0)) {
      throw new UsageError(`unexpected argument ${rest.at(-1)}`);
    }
    const redrive = values.redrive
      ? rest[0] === undefined
        ? 'all'
        : { webhookId: rest[0] }
      : undefined;
    await deadLetters(target, redrive, io);
  },
};

/** Runs the CLI and returns its exit code (`listen` returns once it is closed); never throws. */
export async function runWebhookCli(argv: readonly string[], io: CliIo): Promise<number> {
  let target: Target | undefined;
  try {
    const { values, positionals, help } = parseCommandLine(argv, OPTIONS, true);
    const [command, ...rest] = positionals;
    if (help || command === 'help') {
      io.out(WEBHOOK_HELP);
      return 0;
    }
    if (command === 'listen') {
      noArguments(rest);
      await listenCommand(values, io);
      return 0;
    }
    target = resolveTarget(values, io.env);
    const run = command === undefined ? undefined : COMMANDS[command];
    if (!run) throw commandError(command, [...Object.keys(COMMANDS), 'listen']);
    await run({ rest, values, target, io });
    return 0;
  } catch (caught) {
    return failureExitCode('webhook', caught, io.err, (error) => describe(error, target));
  }
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
  if (name === 'ResourceNotFoundException') return missingTable(error, target);
  if (name === 'QueueDoesNotExist' || /queue does not exist/i.test(message ?? '')) {
    return target && !target.local
      ? `the queue ${target.queue ?? ''} (--queue) does not exist in AWS${target.region ? ` region ${target.region}` : ''}`
      : 'the queue does not exist (locally, the queues live in npm start or npm run db: is one running?)';
  }
  if (code === 'ECONNREFUSED' || name === 'TimeoutError')
    return target?.unreachable ?? 'cannot reach the engine';
  if (name === 'CredentialsProviderError') return `no AWS credentials: ${message}`;
  if (message === 'Region is missing') {
    return "no AWS region: pass --region <r> (the stack's region) or set AWS_REGION";
  }
  return message || String(error);
}
