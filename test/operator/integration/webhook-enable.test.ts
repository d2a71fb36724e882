/**
 * `webhook enable` on a real engine and the local SQS: the replay point stays on the subscriber
 * until the replay has queued every plant, so a replay that stops halfway loses nothing, `list`
 * says it is unfinished, and `enable` again finishes it; once done, the point is gone.
 */
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { PLANTS_TABLE } from '../../../lambda/aws/tables';
import { plantsTable } from '../../../lambda/plants/table';
import { sqsDeliveryQueue, type DeliveryQueue } from '../../../lambda/webhook/delivery-queue';
import type { DeliveryMessage } from '../../../lambda/webhook/message';
import { enable, stateText } from '../../../lib/operator/webhook/receivers';
import { replay } from '../../../lib/operator/webhook/replay';
import { useEngineWithQueues } from '../../support/engine-with-queues';

const w = useEngineWithQueues();
const plants = () => plantsTable(w.client, PLANTS_TABLE.localName);

/** Everything on the delivery queue, received for good (made invisible for the test's length). */
async function drain(): Promise<DeliveryMessage[]> {
  const all: DeliveryMessage[] = [];
  for (;;) {
    const { Messages = [] } = await w.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: w.urls.deliveries,
        MaxNumberOfMessages: 10,
        VisibilityTimeout: 600,
      }),
    );
    if (Messages.length === 0) return all;
    all.push(...Messages.map((m) => JSON.parse(m.Body!) as DeliveryMessage));
  }
}

it('a replay that stops halfway keeps the replay point; enable again finishes it, then it is gone', async () => {
  const subscriberId = 'sub_resume';
  const minute = (m: number) => new Date(Date.UTC(2026, 10, 25, 7, m)).toISOString();
  await w.subscriptions.add({
    subscriberId,
    url: 'https://receiver.example/hook',
    name: 'resume',
    createdAt: minute(0),
    secret: 'sealed',
  });
  for (let i = 1; i <= 6; i++) {
    await plants().putNew(
      { id: BigInt(i), name: `plant ${i}` },
      { createdAt: minute(10 + i), createdBy: 'test' },
    );
  }
  // Disabled with plant 1 as the earliest it missed.
  await w.states.disable(subscriberId, minute(30), '410 Gone', minute(11));
  const lines: string[] = [];
  const io = {
    out: (line: string) => lines.push(line),
    err: (line: string) => lines.push(line),
    env: {},
  };
  const queue = sqsDeliveryQueue(w.urls.deliveries, w.sqs);
  const replayWith = (to: Pick<DeliveryQueue, 'send'>) => async (since: string, id: string) =>
    (
      await replay(
        { since: new Date(since), subscriberId: id },
        { plants: plants(), subscribers: () => w.subscriptions.list(), queue: to },
      )
    ).queued;
  // The queue goes away after taking two of the six (injected: the local queue cannot fail
  // halfway through a batch on cue).
  const failing = {
    send: async (messages: readonly DeliveryMessage[]) => {
      await queue.send(messages.slice(0, 2));
      throw new Error('the queue went away');
    },
  };
  await expect(enable(w.states, replayWith(failing), subscriberId, 'here', io)).rejects.toThrow(
    'the queue went away',
  );
  expect(lines).toEqual([
    `the replay to ${subscriberId} of the plants stored since ${minute(11)} stopped; it is kept: run enable ${subscriberId} again to finish it`,
  ]);
  const stopped = (await w.states.read(subscriberId))!;
  expect(stopped.disabledAt).toBeUndefined();
  expect(stopped.replayFrom).toBe(minute(11));
  expect(stateText(stopped)).toBe(
    `active, replay since ${minute(11)} unfinished (run enable again)`,
  );
  expect(await drain()).toHaveLength(2);

  lines.length = 0;
  await enable(w.states, replayWith(queue), subscriberId, 'here', io);
  expect(lines).toEqual([
    `${subscriberId} was active with a replay left unfinished; 6 plant(s) stored since ${minute(11)} queued to it again, with the webhook-ids they had`,
  ]);
  const queued = await drain();
  expect(queued.map((m) => m.plantId).sort()).toEqual(['1', '2', '3', '4', '5', '6']);
  expect(queued.every((m) => m.subscriberId === subscriberId)).toBe(true);
  expect((await w.states.read(subscriberId))!.replayFrom).toBeUndefined();

  lines.length = 0;
  await enable(w.states, replayWith(queue), subscriberId, 'here', io);
  expect(lines).toEqual([`${subscriberId} was active; nothing to deliver again`]);
  expect(await drain()).toEqual([]);
});
