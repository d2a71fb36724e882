/**
 * Subscriber management and the signed test delivery, through the webhook CLI's own commands
 * (where they act: npm start's engine, or the deployed table and queue its `--aws` options name)
 * and a receiver that this run listens with: the target must reach it at `--receiver`.
 */
import type { CliIo } from '../../../cli/run';
import { listen, type Listener } from '../../webhook/listen';
import { runWebhookCli } from '../../webhook/cli';
import { expectThat, Mismatch, Skip, type VerifyCase, type VerifyContext } from '../context';

/** Where the webhook cases deliver and manage. */
export interface ReceiverOptions {
  /** The URL the target delivers to, which reaches `port` on this machine. */
  readonly url: string;
  /** The port on 127.0.0.1 this run listens on. */
  readonly port: number;
  /** The webhook CLI's target options (`--aws --table … --queue …`), none for npm start. */
  readonly targetArgs: readonly string[];
  /** The environment the webhook CLI reads (npm start's data directory, AWS settings). */
  readonly env: NodeJS.ProcessEnv;
  /** Milliseconds to wait for the test delivery. */
  readonly deliveryTimeoutMs: number;
}

/** The subscriber one run adds, shared by the cases that follow `add`. */
interface Subscription {
  readonly subscriberId: string;
  readonly secret: string;
  removed: boolean;
}
const SUBSCRIPTIONS = new WeakMap<VerifyContext, Subscription>();

/** Runs `npm run webhook -- <args>` in this process; its exit code and lines. */
async function webhook(t: VerifyContext, args: readonly string[]) {
  const options = t.receiver!;
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = { out: (l) => out.push(l), err: (l) => err.push(l), env: options.env };
  const code = await runWebhookCli([...args, ...options.targetArgs], io);
  return { code, out, err };
}

function subscription(t: VerifyContext): Subscription {
  const added = SUBSCRIPTIONS.get(t);
  if (!added) throw new Skip('no subscriber was added');
  return added;
}

const RECEIVES = { needs: [], changes: true, receiver: true } as const;

export const WEBHOOK_CASES: readonly VerifyCase[] = [
  {
    name: 'webhook: add subscribes the receiver and shows its whsec_ secret once',
    ...RECEIVES,
    run: async (t) => {
      const added = await webhook(t, ['add', '--url', t.receiver!.url, '--name', 'verify']);
      const subscriberId = /subscriberId (sub_\S+)/.exec(added.err.join('\n'))?.[1];
      if (subscriberId) {
        const removeIt = { subscriberId, secret: added.out[0] ?? '', removed: false };
        SUBSCRIPTIONS.set(t, removeIt);
        t.onCleanUp(async () => {
          if (!removeIt.removed) await webhook(t, ['remove', subscriberId]);
        });
      }
      expectThat(
        added.code === 0 &&
          added.out.length === 1 &&
          /^whsec_\S{32,}$/.test(added.out[0]!) &&
          !!subscriberId,
        'exit 0, the secret alone on stdout, the subscriber id on stderr',
        `exit ${added.code}, ${added.out.length} lines on stdout, ${added.err.join(' ').slice(0, 160)}`,
      );
    },
  },
  {
    name: 'webhook: list names the subscriber, never its secret',
    ...RECEIVES,
    run: async (t) => {
      const { subscriberId, secret } = subscription(t);
      const listed = await webhook(t, ['list']);
      const text = listed.out.join('\n');
      expectThat(
        listed.code === 0 && text.includes(subscriberId) && !text.includes(secret),
        `a line for ${subscriberId}`,
        `exit ${listed.code}: ${text.slice(0, 200)}`,
      );
    },
  },
  {
    name: 'webhook: test delivers a signed example that verifies with the secret',
    ...RECEIVES,
    run: async (t) => {
      const { subscriberId, secret } = subscription(t);
      const lines: string[] = [];
      const refused: string[] = [];
      let listener: Listener | undefined;
      try {
        listener = await listen({
          port: t.receiver!.port,
          secret,
          out: (line) => lines.push(line),
          err: (line) => refused.push(line),
        });
        const sent = await webhook(t, ['test', subscriberId]);
        const webhookId = sent.out[0];
        if (sent.code !== 0 || !webhookId) {
          throw new Mismatch(
            'test to queue a delivery',
            `exit ${sent.code}: ${sent.err.join(' ')}`,
          );
        }
        const until = Date.now() + t.receiver!.deliveryTimeoutMs;
        while (
          !lines.some((line) => line.startsWith(`${webhookId}\t`)) &&
          Date.now() < until &&
          !t.stopped
        ) {
          if (refused.length) throw new Mismatch(`a delivery signed with the secret`, refused[0]!);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        const line = lines.find((l) => l.startsWith(`${webhookId}\t`));
        expectThat(
          line !== undefined && line.includes('"id":9007199254740993'),
          `${webhookId} at ${t.receiver!.url}, signed, its body's id with every digit`,
          line ?? `nothing in ${t.receiver!.deliveryTimeoutMs / 1000} s`,
        );
      } finally {
        await listener?.close();
      }
    },
  },
  {
    name: 'webhook: remove unsubscribes it, and list no longer names it',
    ...RECEIVES,
    run: async (t) => {
      const added = subscription(t);
      const removed = await webhook(t, ['remove', added.subscriberId]);
      if (removed.code === 0) added.removed = true;
      const listed = await webhook(t, ['list']);
      expectThat(
        removed.code === 0 &&
          listed.code === 0 &&
          !listed.out.join('\n').includes(added.subscriberId),
        `${added.subscriberId} gone from the list`,
        `remove exit ${removed.code}, list: ${listed.out.join(' ').slice(0, 200)}`,
      );
    },
  },
];
