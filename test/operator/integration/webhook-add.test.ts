/**
 * `webhook add --aws` on a real engine: the secret is on stdout as soon as the subscriber is
 * stored, before the wait for every fan-out to read the subscribers, so that a command ended in
 * that wait (Ctrl-C, a dropped session) leaves no active subscriber whose secret nobody saw.
 */
import { SUBSCRIPTIONS_TABLE } from '../../../lambda/aws/tables';
import { SUBSCRIBERS_FRESH_SECONDS } from '../../../lambda/webhook/config';
import { SECRET_FORMAT } from '../../../lambda/webhook/signature';
import { add } from '../../../lib/operator/webhook/subscribers';
import { useEngineWithQueues } from '../../support/engine-with-queues';
import { TEST_SECRET_BOX } from '../../support/secret-box';

const w = useEngineWithQueues();

it('prints the secret and id before the wait, then says registered once it is over', async () => {
  const out: string[] = [];
  const err: string[] = [];
  const seen: { seconds: number; out: string[]; err: string[] }[] = [];
  await add(
    { local: false, where: 'AWS', table: SUBSCRIPTIONS_TABLE.localName },
    { url: 'https://hooks.example.com/t/0ken', name: 'early secret' },
    { out: (line) => out.push(line), err: (line) => err.push(line), env: {} },
    {
      subscriptions: w.subscriptions,
      receiverStates: w.states,
      secretBox: TEST_SECRET_BOX,
      // What a Ctrl-C during the wait would leave on the terminal.
      wait: async (seconds) => void seen.push({ seconds, out: [...out], err: [...err] }),
    },
  );
  expect(seen).toHaveLength(1);
  const [during] = seen;
  expect(during!.seconds).toBe(SUBSCRIBERS_FRESH_SECONDS + 1);
  expect(during!.out).toEqual([expect.stringMatching(SECRET_FORMAT)]);
  const subscriberId = /^subscriberId (sub_\S+) /.exec(during!.err[0]!)?.[1];
  expect(during!.err[0]).toContain('(the secret above is shown this once)');
  expect(during!.err.at(-1)).toMatch(/^registering: /);
  // The secret printed is the one stored, and the subscriber is there during the wait.
  const stored = await w.subscriptions.get(subscriberId!);
  expect(stored?.secret).toBe(`test:${during!.out[0]}`);
  expect(out).toEqual(during!.out);
  expect(err.slice(during!.err.length)).toEqual([
    `registered: every plant stored from now on is delivered to ${subscriberId}`,
  ]);
});
