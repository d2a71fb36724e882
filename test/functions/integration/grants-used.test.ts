/**
 * No function is granted what it never uses. `npm start` (in process, under enforcement) runs
 * one workload that takes every function down each path that calls AWS: the plants operations
 * with their refused conditions (409, 404, 412: the GetItem that says why), the authorizer, the
 * fan-out of a create to four receivers and of an item that is no plant (its record set aside on
 * the stream-failure queue), and the deliverer's success, `Retry-After` hold, 410, retries and
 * dead letter. After it, every action each function's policy grants on each resource has been
 * allowed at least once: an unused grant fails here. The probe: the same workload on a clone of
 * the registry that gives create-plant `delete` besides `putNew` reports exactly the actions
 * that extra method adds.
 */
import { PutItemCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { LOCAL_QUEUE_NAMES, localQueueUrl } from '../../../lib/local/names';
import { ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { PLANTS_TABLE } from '../../../lambda/aws/tables';
import { MAX_ATTEMPTS } from '../../../lambda/webhook/schedule';
import { exampleRequest } from '../../../lib/definitions/example-request';
import { FUNCTION_NAMES, FUNCTIONS } from '../../../lib/definitions/functions';
import { cliEnvironment, useLocalService } from '../../support/local-service';
import { runCommand } from '../../support/run-cli';
import { startReceiver, until, type Receiver } from '../../support/webhook-receiver';

const SCALE = 0.00001;
const registry = useLocalService('grants-used', { webhookRetryScale: SCALE });
const probe = useLocalService('grants-probe', {
  webhookRetryScale: SCALE,
  grants: { 'create-plant': { tables: { plants: ['putNew', 'delete'] } } },
});

const receivers: Receiver[] = [];
afterAll(() => Promise.all(receivers.map((r) => r.close())));

type Service = typeof registry;

/** Every path of every function that calls AWS, on `service`; resolves once each has run. */
async function exercise(service: Service): Promise<void> {
  const send = async (method: string, path: string, body?: string, ifMatch?: string) => {
    const response = await fetch(`${service.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${service.devToken}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(ifMatch === undefined ? {} : { 'if-match': ifMatch }),
      },
      body,
    });
    return response.status;
  };
  const cli = (...args: string[]) => runCommand('webhook', args, cliEnvironment(service));

  const answers = {
    ok: () => 204,
    wait: (nth: number) => (nth === 1 ? { status: 503, headers: { 'retry-after': '1' } } : 204),
    gone: () => 410,
    failing: () => 500,
  };
  const started: Record<string, Receiver> = {};
  for (const [name, answer] of Object.entries(answers)) {
    const receiver = await startReceiver(answer);
    receivers.push(receiver);
    const added = await cli('add', '--url', receiver.url, '--name', name);
    expect(added.code).toBe(0);
    receiver.secret = added.stdout.trim();
    started[name] = receiver;
  }

  const plant = '{"id":1,"name":"Monstera"}';
  expect([
    await send('POST', '/plants', plant),
    await send('POST', '/plants', plant),
    await send('POST', '/plants', '{"id":1,"name":"Pothos"}'),
    await send('GET', '/plants/1'),
    await send('GET', '/plants'),
    await send('GET', '/plants?tag=aroid'),
    await send('PUT', '/plants/1', '{"name":"Monstera","tag":"aroid"}'),
    await send('PUT', '/plants/2', '{"name":"None"}'),
    await send('PATCH', '/plants/1', '{"tag":null}', '"1"'),
    await send('PATCH', '/plants/1', '{"tag":"x"}'),
    await send('DELETE', '/plants/1', undefined, '"1"'),
    await send('DELETE', '/plants/1'),
  ]).toEqual([200, 200, 409, 200, 200, 200, 200, 404, 412, 200, 412, 204]);

  // Every operation once more, from the registry, as its example request (whatever its method)
  // about a plant that exists (a create of it is a conflict, and makes no delivery more): an
  // operation added since the list above was written reaches its grants here with no edit.
  expect(await send('POST', '/plants', '{"id":3,"name":"Monstera"}')).toBe(200);
  for (const name of FUNCTION_NAMES) {
    if (!FUNCTIONS[name].operation) continue;
    const request = exampleRequest(name, 3);
    // Answered by the function, not failed by a call its grants refused (a 5xx).
    const status = await send(request.method, request.path, request.body);
    expect([name, status < 500]).toEqual([name, true]);
  }

  // An item that is no plant: its stream record cannot be delivered and is set aside.
  await new DynamoDBClient(service.engineClientConfig).send(
    new PutItemCommand({
      TableName: PLANTS_TABLE.localName,
      Item: { id: { N: '5' }, name: { N: '7' } },
      // As a create writes, so that the stream makes a record of it.
      ConditionExpression: 'attribute_not_exists(id)',
    }),
  );
  const { ok, wait, gone, failing } = started as Record<keyof typeof answers, Receiver>;
  await until(
    () =>
      ok!.received.length >= 1 &&
      wait!.received.length >= 2 &&
      gone!.received.length >= 1 &&
      failing!.received.length >= MAX_ATTEMPTS,
    'every receiver answered',
  );
  const [setAside, deadLetter] = await Promise.all([
    firstMessage(service, 'streamFailures'),
    firstMessage(service, 'deadLetters'),
  ]);
  expect(setAside).toContain('is not a stored plant');
  // One of the failing receiver's deliveries (which one dead-letters first is the queue's).
  expect(failing!.received.some((delivery) => deadLetter.includes(delivery.id))).toBe(true);
}

/** The first message on one of `service`'s webhook queues (read as the operator). */
async function firstMessage(
  service: Service,
  queue: keyof typeof LOCAL_QUEUE_NAMES,
): Promise<string> {
  const sqs = new SQSClient(service.engineClientConfig);
  const url = localQueueUrl(`http://127.0.0.1:${service.dbPort}`, LOCAL_QUEUE_NAMES[queue]);
  for (const started = Date.now(); Date.now() - started < 60_000;) {
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: url, WaitTimeSeconds: 1 }),
    );
    if (Messages.length > 0) return Messages[0]!.Body ?? '';
  }
  throw new Error(`gave up waiting for a message on ${queue}`);
}

it('the registry: after the workload, every grant of every function was used', async () => {
  await exercise(registry);
  expect(registry.unusedGrants()).toEqual([]);
});

it('the probe: create-plant given delete besides putNew has exactly its actions unused', async () => {
  expect(FUNCTIONS['create-plant'].tables).toEqual({ plants: ['putNew'] });
  await exercise(probe);
  expect(probe.unusedGrants()).toEqual([
    'create-plant dynamodb:UpdateItem on arn:aws:dynamodb:local:000000000000:table/plants',
  ]);
});
