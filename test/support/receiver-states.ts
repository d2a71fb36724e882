/**
 * Receiver states on a real local engine, for the suites that test them: one engine per suite,
 * the commands sent counted by name, and a subscriber made per test. The bindings are set before
 * the suite's tests run (`useReceiverStates` in the suite's top level).
 */
import { makeDocumentClient } from '../../lambda/aws/dynamodb';
import { SUBSCRIPTIONS_TABLE } from '../../lambda/aws/tables';
import { ReceiverStates } from '../../lambda/webhook/receiver-state';
import { SubscriptionsTable } from '../../lambda/webhook/subscriptions-table';
import { startEngine, type Engine } from '../../lib/local/dynamodb/engine';

export let engine: Engine;
export let states: ReceiverStates;
export let subscriptions: SubscriptionsTable;
/** The commands the receiver states sent, by name. */
export const calls: string[] = [];

/** Starts the engine before the suite and closes it after. */
export function useReceiverStates(): void {
  beforeAll(async () => {
    engine = await startEngine();
    const client = makeDocumentClient(engine.clientConfig);
    const send = client.send.bind(client) as (command: object) => Promise<unknown>;
    client.send = ((command: object) => {
      calls.push(command.constructor.name);
      return send(command);
    }) as typeof client.send;
    states = new ReceiverStates(client, SUBSCRIPTIONS_TABLE.localName);
    subscriptions = new SubscriptionsTable(client, SUBSCRIPTIONS_TABLE.localName);
  });
  afterAll(() => engine.close());
}

let n = 0;
/** A new subscriber, at `rate` a second if given. */
export async function subscriber(rate?: number): Promise<string> {
  const subscriberId = `sub_test${++n}`;
  await subscriptions.add({
    subscriberId,
    url: 'http://127.0.0.1:9/hook',
    name: subscriberId,
    createdAt: new Date().toISOString(),
    secret: 'sealed',
  });
  if (rate !== undefined) expect(await states.setRate(subscriberId, rate)).toBe(true);
  return subscriberId;
}

/** A gate's callbacks that say nothing. */
export const quiet = { disabled: () => undefined, failing: () => undefined };
