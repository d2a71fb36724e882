/**
 * The console's actions: each the command of `npm run token`, `npm run webhook` or `npm run
 * state` it stands for, run in-process on this `npm start` as a terminal would run it.
 */
import { parseDeliveryMessage } from '../../lambda/webhook/message';
import { redacted, type Invocations } from '../npm-start/find';
import { argument, runCommand, type Ran, type Where } from './data';
import { overwriteRefusal, stateAction } from './state-actions';

/** Where the actions act, and the recorded invocations (a delivery is replayed from one). */
export interface ActionContext extends Where {
  readonly invocations: Invocations;
}

function shown(ran: Ran): [number, unknown] {
  return [ran.code === 0 ? 200 : 400, redacted({ code: ran.code, out: ran.out, err: ran.err })];
}

/** An action: the CLI command it is, run as the terminal runs it. */
export async function act(
  body: Record<string, unknown>,
  options: ActionContext,
): Promise<[number, unknown]> {
  const text = (name: string) => argument(name, body[name]);
  const given = (name: string) =>
    body[name] === undefined || body[name] === '' ? [] : [text(name)];
  try {
    switch (body.action) {
      case 'revoke':
        return shown(await runCommand('token', ['revoke', '--', text('tokenId')], options));
      case 'enable':
        return shown(await runCommand('webhook', ['enable', '--', text('subscriberId')], options));
      case 'redrive': {
        const one = given('webhookId');
        return shown(
          await runCommand('webhook', ['dead-letters', '--redrive', '--', ...one], options),
        );
      }
      case 'replay': {
        const subscriber = given('subscriberId').map((id) => `--subscriber=${id}`);
        return shown(
          await runCommand(
            'webhook',
            ['replay', `--since=${text('since')}`, ...subscriber],
            options,
          ),
        );
      }
      case 'replay-delivery':
        return shown(await replayDelivery(Number(body.seq), options));
      case 'state':
        return (await overwriteRefusal(body, options)) ?? shown(await stateAction(body, options));
      default:
        return [400, { error: `unknown action ${String(body.action)}` }];
    }
  } catch (error) {
    return [400, { error: (error as Error).message }];
  }
}

/**
 * The deliveries of a deliver invocation, queued again: `webhook replay` over the instant each
 * was stored, to its subscriber (the same webhook-id, so a receiver deduplicates).
 */
async function replayDelivery(seq: number, options: ActionContext): Promise<Ran> {
  const entry = options.invocations.get(seq);
  const records = (entry?.event as { Records?: { body?: string }[] } | undefined)?.Records ?? [];
  const deliveries = records.flatMap((r) => parseDeliveryMessage(r.body ?? '') ?? []);
  if (deliveries.length === 0) {
    return { code: 1, out: [], err: ['this invocation delivered nothing that can be replayed'] };
  }
  const ran: Ran = { code: 0, out: [], err: [] };
  for (const delivery of deliveries) {
    if (!delivery.storedAt) {
      ran.err.push(`${delivery.webhookId}: a test delivery (no stored plant) is not replayed`);
      continue;
    }
    const until = new Date(Date.parse(delivery.storedAt) + 1).toISOString();
    const argv = ['replay', `--since=${delivery.storedAt}`, `--until=${until}`];
    const one = await runCommand(
      'webhook',
      [...argv, `--subscriber=${delivery.subscriberId}`],
      options,
    );
    ran.out.push(...one.out);
    ran.err.push(...one.err);
    if (one.code !== 0) return { ...ran, code: one.code };
  }
  return ran;
}
