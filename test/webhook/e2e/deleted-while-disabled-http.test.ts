/**
 * Deletes are not lost while a subscriber is disabled, end to end through the local runtime
 * (`npm start` in-process, the schedule at 1/10,000): a plantDeleted subscriber answers 410 and is
 * disabled; plants deleted meanwhile leave tombstones; `webhook enable` replays them, so every
 * plantDeleted arrives, signed, with the webhook-id its live delivery had (the one answered 410
 * comes again under that very id). `webhook replay --since` queues them again under the same ids.
 */
import { runCommand } from '../../support/run-cli';
import { cliEnvironment, useLocalService } from '../../support/local-service';
import { startReceiver, until, type Receiver } from '../../support/webhook-receiver';
import { webhookIdOf } from '../../../lambda/webhook/signature';

jest.setTimeout(300_000);

const service = useLocalService('deleted-while-disabled', { webhookRetryScale: 0.0001 });
const cli = (...args: string[]) => runCommand('webhook', args, cliEnvironment(service));

let receiver: Receiver | undefined;
afterAll(async () => {
  await receiver?.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One API request with the dev token, sent again on a 503 or the gateway's 500 (a loaded machine). */
async function call(method: string, path: string, body?: string): Promise<number> {
  for (let tries = 1; ; tries++) {
    const answer = await fetch(`${service.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${service.devToken}`,
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      body,
    });
    await answer.arrayBuffer();
    if ((answer.status === 503 || answer.status === 500) && tries < 10) await sleep(1_000);
    else return answer.status;
  }
}

/** A plantDeleted body as a receiver reads it (the id as text, every digit). */
function deletion(body: string): { type: string; id: string; createdAt: string; version: number } {
  return { ...JSON.parse(body), id: /"id":(-?\d+)/.exec(body)![1]! };
}

it('plants deleted while a plantDeleted subscriber is disabled arrive after enable, under their first webhook-ids', async () => {
  let gone = true;
  receiver = await startReceiver(() => (gone ? 410 : 204));
  const added = await cli('add', '--url', receiver.url, '--events', 'plantDeleted');
  expect(added.code).toBe(0);
  receiver.secret = added.stdout.trim();
  const subscriberId = /subscriberId (sub_\S+)/.exec(added.stderr)![1]!;

  const ids = ['9223372036854775807', '-9223372036854775808', '9007199254740993', '7'];
  for (const id of ids) {
    expect(await call('POST', '/plants', `{"id":${id},"name":"plant ${id}","tag":"doomed"}`)).toBe(
      200,
    );
  }
  // The first delete's plantDeleted is answered 410: the subscriber is disabled at once.
  expect(await call('DELETE', `/plants/${ids[0]}`)).toBe(204);
  await until(() => receiver!.received.length === 1, 'the 410');
  const goneId = receiver.received[0]!.id;
  await until(
    async () => /\tdisabled since \S+: 410 Gone/.test((await cli('list')).stdout),
    'the subscriber disabled',
  );

  // Deleted while disabled: their messages are dropped, their tombstones kept.
  for (const id of ids.slice(1, 3)) expect(await call('DELETE', `/plants/${id}`)).toBe(204);
  // A delete of a tombstone is no delete: 404, and no event.
  expect(await call('DELETE', `/plants/${ids[1]}`)).toBe(404);
  // Time enough for deliveries that must not come (the queue polls every few ms here).
  await sleep(3_000);
  expect(receiver.received).toHaveLength(1);
  expect(await call('GET', '/plants?tag=doomed')).toBe(200);

  gone = false;
  expect((await cli('enable', subscriberId)).code).toBe(0);
  await until(() => receiver!.delivered().size === 3, 'every plantDeleted missed');
  const delivered = [...receiver.delivered().values()];
  expect(delivered.every((r) => r.verified)).toBe(true);
  const events = new Map(
    delivered.map((r) => [
      deletion(r.body).id,
      { webhookId: r.id, body: r.body, ...deletion(r.body) },
    ]),
  );
  expect([...events.keys()].sort()).toEqual(ids.slice(0, 3).sort());
  for (const [id, event] of events) {
    expect(event.body).toMatch(
      new RegExp(`^\\{"type":"plantDeleted","id":${id},"createdAt":"[^"]+","version":2\\}$`),
    );
    // The id the live delivery had: derived from the subscriber, the plant and `createdAt#version`.
    expect(event.webhookId).toBe(webhookIdOf(subscriberId, id, `${event.createdAt}#2`));
  }
  // The one answered 410 comes again with the webhook-id of that attempt.
  expect(events.get(ids[0]!)!.webhookId).toBe(goneId);

  // A replay (after a stream record was set aside, say) queues them again under the same ids.
  const before = receiver.received.length;
  const replayed = await cli('replay', '--since', '2000-01-01T00:00:00Z');
  expect(replayed.code).toBe(0);
  expect(replayed.stderr).toMatch(/^queued 3 deliveries of 3 plants /);
  await until(() => receiver!.received.length >= before + 3, 'the replayed deliveries');
  const again = receiver.received.slice(before);
  expect(new Set(again.map((r) => r.id))).toEqual(new Set(receiver.delivered().keys()));
});
