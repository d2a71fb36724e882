/**
 * Webhook isolation under load, on a runtime of its own (no other test's subscribers or retries
 * in its queue): 300 plants delivered to a receiver that hangs on every attempt and to a fast
 * one. The fast one must have each plant sooner after it was stored than one of the deliverer's
 * 10 s attempts lasts: were its deliveries queued behind the hanging ones (the deliverer's 50
 * invocations all held by hanging attempts, which needs them gathered into few invocations:
 * batches of 100 over a 1 s window), its later plants would wait for those attempts' timeouts.
 * Measured per plant, from its own create, so a slow machine storing the burst slowly does not
 * count as a receiver held up.
 */
import { DELIVERY_TIMEOUT_SECONDS } from '../../../lambda/webhook/schedule';
import { runCommand } from '../../support/run-cli';
import { cliEnvironment, useLocalService } from '../../support/local-service';
import { startReceiver, until, type Receiver } from '../../support/webhook-receiver';

jest.setTimeout(120_000);

const service = useLocalService('webhook-isolation', { webhookRetryScale: 0.0001 });
const cli = (...args: string[]) => runCommand('webhook', args, cliEnvironment(service));

const receivers: Receiver[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
});

/**
 * Adds `receiver` as a subscriber through the CLI; answers its id. At the highest rate: this is
 * about isolation, and the default pace (100 a second, starts 12.5 ms apart) alone would stretch
 * 300 plants over 3.75 s of the 10 s the hanging requests stay open (the rate is tested on its
 * own, in webhook-receivers.test.ts).
 */
async function subscribe(receiver: Receiver): Promise<string> {
  const added = await cli('add', '--url', receiver.url, '--rate', '1000');
  expect(added.code).toBe(0);
  receiver.secret = added.stdout.trim();
  return /subscriberId (sub_\S+)/.exec(added.stderr)![1]!;
}

const post = (body: string) =>
  fetch(`${service.url}/plants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${service.devToken}`, 'content-type': 'application/json' },
    body,
  });

it('a receiver that always hangs delays no other, however many of its deliveries wait at once', async () => {
  const stuck = await startReceiver(() => 'hang');
  const fast = await startReceiver();
  receivers.push(stuck, fast);
  const ids = [await subscribe(stuck), await subscribe(fast)];
  // Far more plants than the deliverer has invocations at once (50) could hold in batches of 10:
  // the fast receiver's later plants would then wait for the stuck ones' timeouts.
  // Created 25 at a time, so that all are stored well within the 10 s a hanging attempt lasts.
  const count = 300;
  const storedAt = new Map<string, number>();
  for (let i = 0; i < count; i += 25) {
    const statuses = await Promise.all(
      Array.from({ length: 25 }, (_, j) => {
        const id = String(7_000_000 + i + j);
        return post(`{"id":${id},"name":"burst ${i + j}"}`).then((r) => {
          storedAt.set(id, Date.now());
          return r.status;
        });
      }),
    );
    expect(statuses.every((status) => status === 200)).toBe(true);
  }
  await until(() => fast.delivered().size === count, 'the fast receiver has every plant');
  expect(stuck.received.length).toBeGreaterThan(0);
  // Each plant reached the fast receiver before a hanging attempt could have been given up.
  const waits = [...fast.delivered().values()].map((r) => {
    const id = /"id":(\d+)/.exec(r.body)![1]!;
    return r.at - storedAt.get(id)!;
  });
  expect(waits).toHaveLength(count);
  expect(Math.max(...waits)).toBeLessThan(DELIVERY_TIMEOUT_SECONDS * 1000);
  for (const id of ids) expect((await cli('remove', id)).code).toBe(0);
});
