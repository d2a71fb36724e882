/**
 * The local SQS endpoint (on the engine's port, as `npm start` and `npm run db` serve it) over
 * real HTTP: whatever a request holds — not JSON, `null`, a wrong shape, a value out of SQS's
 * ranges, a batch SQS refuses, too many bytes, a character SQS refuses — it gets SQS's error (the query error code the
 * SDK names it by, `__type`, message), changes no queue, and the engine keeps serving; a
 * far-off visibility never turns the queue's timer into a busy loop.
 */
import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { LOCAL_QUEUE_NAMES, localCliClientConfig, localQueueUrl } from '../../../lib/local/names';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Engine } from '../../../lib/local/dynamodb/engine';
import { LocalQueue } from '../../../lib/local/sqs/queue';
import { MAX_SQS_REQUEST_BYTES, serveSqs } from '../../../lib/local/sqs/api';
import { startEngineWithQueues } from '../../../lib/local/webhooks';
import { signedHeaders } from '../../support/signed-headers';
import { until } from '../../support/webhook-receiver';

let engine: Engine;
let queueUrl: string;
beforeAll(async () => {
  engine = await startEngineWithQueues();
  queueUrl = localQueueUrl(engine.endpoint, LOCAL_QUEUE_NAMES.deliveries);
});
afterAll(() => engine.close());

/** One SQS JSON request with a raw body, as an SDK sends it (no browser headers). */
async function post(action: string, body: string) {
  // Signed by the engine's operator, as an SDK client signs (the engine refuses strangers).
  const headers = await signedHeaders(
    engine.endpoint,
    'sqs',
    { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': `AmazonSQS.${action}` },
    body,
    engine.clientConfig.credentials,
  );
  return new Promise<{ status: number; queryError: string | undefined; body: Fault }>(
    (resolve, reject) => {
      const req = request(engine.endpoint, { method: 'POST', headers }, (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode!,
            queryError: res.headers['x-amzn-query-error'] as string | undefined,
            body: JSON.parse(text) as Fault,
          }),
        );
      });
      req.on('error', reject);
      req.end(body);
    },
  );
}
interface Fault {
  __type?: string;
  message?: string;
}
const send = (action: string, input: unknown) => post(action, JSON.stringify(input));

/** Messages on the delivery queue now, as GetQueueAttributes counts them. */
async function queued(): Promise<number> {
  const answer = await send('GetQueueAttributes', { QueueUrl: queueUrl });
  expect(answer.status).toBe(200);
  return Number(
    (answer.body as { Attributes: Record<string, string> }).Attributes.ApproximateNumberOfMessages,
  );
}

it.each([
  ['null', 'null'],
  ['a number', '5'],
  ['a list', '[]'],
  ['not JSON', '{"QueueName":'],
])(
  'a body that is %s: 400 SerializationException, and the engine keeps serving',
  async (_, body) => {
    const answer = await post('GetQueueUrl', body);
    expect(answer.status).toBe(400);
    expect(answer.body.__type).toBe('com.amazon.coral.service#SerializationException');
    const after = await send('GetQueueUrl', { QueueName: LOCAL_QUEUE_NAMES.deliveries });
    expect(after).toMatchObject({ status: 200, body: { QueueUrl: queueUrl } });
  },
);

it.each([
  [
    'ReceiveMessage',
    { VisibilityTimeout: 1e8 },
    'VisibilityTimeout',
    'Must be between 0 and 43200',
  ],
  ['ReceiveMessage', { VisibilityTimeout: -1 }, 'VisibilityTimeout', 'Must be between 0 and 43200'],
  ['ReceiveMessage', { VisibilityTimeout: 1.5 }, 'VisibilityTimeout', 'integer'],
  [
    'ReceiveMessage',
    { MaxNumberOfMessages: 11 },
    'MaxNumberOfMessages',
    'Must be between 1 and 10',
  ],
  ['ReceiveMessage', { MaxNumberOfMessages: 0 }, 'MaxNumberOfMessages', 'Must be between 1 and 10'],
  ['ReceiveMessage', { WaitTimeSeconds: 21 }, 'WaitTimeSeconds', 'Must be between 0 and 20'],
  [
    'ChangeMessageVisibility',
    { ReceiptHandle: 'h', VisibilityTimeout: 43_201 },
    'VisibilityTimeout',
    '43200',
  ],
  [
    'ChangeMessageVisibility',
    { ReceiptHandle: 'h', VisibilityTimeout: '30' },
    'VisibilityTimeout',
    'number',
  ],
  ['SendMessage', { MessageBody: 5 }, 'MessageBody', 'string'],
  ['SendMessage', { MessageBody: '' }, 'MessageBody', 'at least one character'],
  ['SendMessage', { MessageBody: 'x'.repeat(262_145) }, 'MessageBody', 'shorter than 262144 bytes'],
  [
    'SendMessage',
    { MessageBody: 'x', DelaySeconds: 901 },
    'DelaySeconds',
    'Must be between 0 and 900',
  ],
  ['SendMessageBatch', { Entries: 'x' }, 'Entries', 'list'],
  ['SendMessageBatch', { Entries: [{ Id: 'a', MessageBody: 7 }] }, 'Entries.MessageBody', 'string'],
])(
  '%s with %j: 400 InvalidParameterValue naming %s, nothing queued',
  async (action, input, name, reason) => {
    const answer = await send(action, { QueueUrl: queueUrl, ...input });
    expect(answer.status).toBe(400);
    expect(answer.queryError).toBe('InvalidParameterValue;Sender');
    expect(answer.body.__type).toBe('com.amazon.coral.service#InvalidParameterValueException');
    expect(answer.body.message).toMatch(
      new RegExp(`^Value .* for parameter ${name} is invalid\\. Reason: .*${reason}`),
    );
    expect(await queued()).toBe(0);
  },
);

it.each([
  ['SendMessage', 'MessageBody', { QueueUrl: 'Q' }],
  ['SendMessageBatch', 'Entries', { QueueUrl: 'Q' }],
  ['ChangeMessageVisibility', 'VisibilityTimeout', { QueueUrl: 'Q', ReceiptHandle: 'h' }],
  ['GetQueueUrl', 'QueueName', {}],
  ['DeleteMessage', 'ReceiptHandle', { QueueUrl: 'Q' }],
])('%s without %s: 400 MissingParameter', async (action, name, input) => {
  const answer = await send(
    action,
    JSON.parse(JSON.stringify(input).replace('"Q"', JSON.stringify(queueUrl))),
  );
  expect(answer).toMatchObject({
    status: 400,
    queryError: 'MissingParameter;Sender',
    body: { message: `The request must contain the parameter ${name}.` },
  });
});

const entries = (n: number, id = (i: number) => `e${i}`) =>
  Array.from({ length: n }, (_, i) => ({ Id: id(i), MessageBody: `m${i}` }));

it.each([
  ['no entries', 'EmptyBatchRequest', []],
  ['11 entries', 'TooManyEntriesInBatchRequest', entries(11)],
  ['two entries with one id', 'BatchEntryIdsNotDistinct', entries(2, () => 'same')],
  ['an id with a space', 'InvalidBatchEntryId', entries(1, () => 'a b')],
  ['an id of 81 characters', 'InvalidBatchEntryId', entries(1, () => 'x'.repeat(81))],
  [
    '262,145 bytes in all',
    'BatchRequestTooLong',
    [
      { Id: 'a', MessageBody: 'x'.repeat(200_000) },
      { Id: 'b', MessageBody: 'x'.repeat(62_145) },
    ],
  ],
])('SendMessageBatch with %s: 400 %s, nothing queued', async (_, code, batch) => {
  const answer = await send('SendMessageBatch', { QueueUrl: queueUrl, Entries: batch });
  expect(answer).toMatchObject({
    status: 400,
    queryError: `AWS.SimpleQueueService.${code};Sender`,
    body: { __type: `com.amazonaws.sqs#${code}` },
  });
  expect(await queued()).toBe(0);
});

it('a request over the size cap: 400 without reading the rest; the engine keeps serving', async () => {
  const answer = await post(
    'SendMessage',
    `{"QueueUrl":"${queueUrl}","MessageBody":"${'x'.repeat(MAX_SQS_REQUEST_BYTES)}"}`,
  ).catch(
    // The engine may close the connection before the client has sent everything.
    () => ({ status: 400, queryError: 'InvalidParameterValue;Sender', body: {} }),
  );
  expect(answer).toMatchObject({ status: 400, queryError: 'InvalidParameterValue;Sender' });
  expect(await queued()).toBe(0);
});

it('an action the local queues do not answer: 400 UnsupportedOperation', async () => {
  const answer = await send('PurgeQueue', { QueueUrl: queueUrl });
  expect(answer).toMatchObject({
    status: 400,
    queryError: 'AWS.SimpleQueueService.UnsupportedOperation;Sender',
  });
});

it("a fault hook that throws: SQS's 500 InternalFailure for that call, and the next is served", async () => {
  const queue = new LocalQueue({ name: 'q', url: 'u', arn: 'a', visibilityTimeoutSeconds: 30 });
  let calls = 0;
  const server = createServer((req, res) =>
    serveSqs(req, res, [queue], {
      call: () => {
        if (calls++ === 0) throw new Error('a bug in the hook');
        return undefined;
      },
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const call = () =>
    fetch(`http://127.0.0.1:${port}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-amz-json-1.0',
        'x-amz-target': 'AmazonSQS.SendMessage',
      },
      body: JSON.stringify({ QueueUrl: 'u/q', MessageBody: 'm' }),
    }).then(async (r) => ({ status: r.status, body: await r.json() }));
  try {
    expect(await call()).toMatchObject({
      status: 500,
      body: { __type: 'com.amazonaws.sqs#InternalFailure' },
    });
    // Not carried out: the queue holds only the second call's message.
    expect(await call()).toMatchObject({ status: 200, body: { MessageId: expect.any(String) } });
    expect(queue.receive(10)).toHaveLength(1);
  } finally {
    queue.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

it('the AWS SDK names the refusal as SQS would (InvalidParameterValue) and accepts what is valid', async () => {
  const sqs = new SQSClient(localCliClientConfig(engine.endpoint, engine.clientConfig.credentials));
  try {
    await expect(
      sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, VisibilityTimeout: 1e8 })),
    ).rejects.toMatchObject({ name: 'InvalidParameterValue', $metadata: { httpStatusCode: 400 } });
    await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'ok' }));
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: 10,
        VisibilityTimeout: 43_200,
      }),
    );
    expect(Messages.map((m) => m.Body)).toEqual(['ok']);
    const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl }));
    expect(Attributes?.ApproximateNumberOfMessagesNotVisible).toBe('1');
  } finally {
    sqs.destroy();
  }
});

it('ChangeMessageVisibility within 12 h of the receive that issued the handle: accepted; past it, refused as SQS refuses it', async () => {
  const sqs = new SQSClient(localCliClientConfig(engine.endpoint, engine.clientConfig.credentials));
  // Only the clock is faked: the engine, the queue and this test read it in one process.
  const at = Date.parse('2026-01-01T00:00:00.000Z');
  jest.useFakeTimers({ now: at, doNotFake: ['setTimeout', 'setImmediate', 'nextTick'] });
  const change = (handle: string, seconds: number) =>
    sqs.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: queueUrl,
        ReceiptHandle: handle,
        VisibilityTimeout: seconds,
      }),
    );
  const receive = async () => {
    const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl }));
    return Messages[0]?.ReceiptHandle;
  };
  const beyond = (seconds: number) => ({
    name: 'InvalidParameterValue',
    message: `Value ${seconds} for parameter VisibilityTimeout is invalid. Reason: Total VisibilityTimeout for the message is beyond the limit [43200 seconds].`,
    $metadata: { httpStatusCode: 400 },
  });
  try {
    await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'twelve' }));
    const first = (await receive())!;
    // Two hours after the receive, 10 h are left: not one second more.
    jest.setSystemTime(at + 2 * 3_600_000);
    await expect(change(first, 36_001)).rejects.toMatchObject(beyond(36_001));
    await change(first, 36_000);
    // A change counts from the call, but never resets the 12 h.
    jest.setSystemTime(at + 2 * 3_600_000 + 10_000);
    await expect(change(first, 36_000)).rejects.toMatchObject(beyond(36_000));
    await change(first, 35_990);
    // Visible again and received again: the next 12 h count from that receive, not the first.
    await change(first, 0);
    jest.setSystemTime(at + 20 * 3_600_000);
    const second = (await receive())!;
    expect(second).not.toBe(first);
    jest.setSystemTime(at + 20 * 3_600_000 + 1_000);
    await expect(change(second, 43_200)).rejects.toMatchObject(beyond(43_200));
    await change(second, 43_199);
    await sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: second }));
    expect(await queued()).toBe(0);
  } finally {
    jest.useRealTimers();
    sqs.destroy();
  }
});

it("a message invisible for longer than setTimeout's limit does not wake the queue every millisecond", async () => {
  const queue = new LocalQueue({ name: 'q', url: 'u', arn: 'a', visibilityTimeoutSeconds: 30 });
  let wakeups = 0;
  queue.onAvailable(() => wakeups++);
  queue.send('far');
  // Past what a change may ask (12 h from the receive): only a receive can ask it here.
  queue.receive(1, 1e8);
  const before = wakeups;
  await new Promise((resolve) => setTimeout(resolve, 300));
  // An overflowed timer fires about every millisecond: hundreds here.
  expect(wakeups - before).toBeLessThan(5);
  queue.close();
});

it('a message that becomes visible while the listeners are being told is never missed', () => {
  jest.useFakeTimers({ now: 1_000_000 });
  try {
    const queue = new LocalQueue({ name: 'q', url: 'u', arn: 'a', visibilityTimeoutSeconds: 30 });
    queue.send('m');
    const [message] = queue.receive(1);
    const seen: number[] = [];
    let crossed = false;
    queue.onAvailable(() => {
      seen.push(queue.counts().visible);
      // The clock passes the message's time while a listener looks (a busy process): it saw
      // nothing visible, and must still hear of the message once it is.
      if (!crossed && queue.counts().invisible === 1 && message!.visibleAt < 1_100_000) {
        crossed = true;
        jest.setSystemTime(message!.visibleAt);
      }
    });
    expect(queue.changeVisibility(message!.receiptHandle!, 1)).toBe('changed');
    expect(crossed).toBe(true);
    jest.advanceTimersByTime(60_000);
    expect(seen.at(-1)).toBe(1);
    queue.close();
  } finally {
    jest.useRealTimers();
  }
});

it("a failed invocation's messages come back when the receive's visibility timeout ends, scaled; one it changed keeps its change", () => {
  jest.useFakeTimers({ now: 1_000_000 });
  try {
    const queue = new LocalQueue({
      name: 'q',
      url: 'u',
      arn: 'a',
      visibilityTimeoutSeconds: 180,
      scale: 0.01,
    });
    queue.send('untouched');
    queue.send('changed');
    const [untouched, changed] = queue.receive(10);
    const firstHandle = untouched!.receiptHandle!;
    // 0.5 s in, the invocation asked 100 s (1 s scaled) for one of them; it failed at 1 s.
    jest.setSystemTime(1_000_000 + 500);
    expect(queue.changeVisibility(changed!.receiptHandle!, 100)).toBe('changed');
    jest.setSystemTime(1_000_000 + 1_000);
    queue.unsettled([firstHandle, changed!.receiptHandle!]);
    // 180 s scaled is 1.8 s from the receive, not from the failure; the change's 1.5 s holds.
    jest.setSystemTime(1_000_000 + 1_500);
    expect(queue.receive(10).map((m) => m.body)).toEqual(['changed']);
    jest.setSystemTime(1_000_000 + 1_799);
    expect(queue.receive(10)).toEqual([]);
    jest.setSystemTime(1_000_000 + 1_800);
    expect(queue.receive(10).map((m) => m.body)).toEqual(['untouched']);
    // An old handle changes nothing: the message just received stays invisible its 180 s.
    queue.unsettled([firstHandle]);
    jest.setSystemTime(1_000_000 + 1_800 + 179_999);
    expect(queue.counts()).toMatchObject({ visible: 1, invisible: 1 });
    jest.setSystemTime(1_000_000 + 1_800 + 180_000);
    expect(queue.counts()).toMatchObject({ visible: 2, invisible: 0 });
    queue.close();
  } finally {
    jest.useRealTimers();
  }
});

it.each([
  ['U+FFFF', 'a\uFFFFb'],
  ['U+FFFE', '\uFFFE'],
  ['U+0000', 'a\u0000'],
  ['a lone surrogate', 'a\uD800b'],
])(
  'a body holding %s: SendMessage refused (InvalidMessageContents); in a batch that entry alone, as the sender’s fault',
  async (_, refused) => {
    const sqs = new SQSClient(
      localCliClientConfig(engine.endpoint, engine.clientConfig.credentials),
    );
    try {
      const before = await queued();
      await expect(
        sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: refused })),
      ).rejects.toMatchObject({
        name: 'InvalidMessageContents',
        $metadata: { httpStatusCode: 400 },
      });
      // What SQS takes: tab, line ends, U+FFFD, a character beyond the basic plane.
      const taken = '\t\r\n\uFFFD\u{1F331}';
      const answer = await sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: [
            { Id: 'taken', MessageBody: taken },
            { Id: 'refused', MessageBody: refused },
          ],
        }),
      );
      expect(answer.Successful?.map((entry) => entry.Id)).toEqual(['taken']);
      expect(answer.Failed).toEqual([
        expect.objectContaining({
          Id: 'refused',
          SenderFault: true,
          Code: 'InvalidMessageContents',
        }),
      ]);
      expect(await queued()).toBe(before + 1);
    } finally {
      sqs.destroy();
    }
  },
);

describe('long polling (WaitTimeSeconds), as SQS waits', () => {
  // The SQS protocol alone (the engine's port adds its signature check): a queue the test holds,
  // so that it can tell when a receive is waiting on it.
  let queue: LocalQueue;
  let server: Server;
  let endpoint: string;
  beforeEach(async () => {
    queue = new LocalQueue({ name: 'q', url: 'u', arn: 'a', visibilityTimeoutSeconds: 30 });
    server = createServer((req, res) => serveSqs(req, res, [queue]));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(async () => {
    queue.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  /** A ReceiveMessage waiting `seconds`: its messages' bodies and receive counts. */
  const receive = async (seconds: number, signal?: AbortSignal) => {
    const response = await fetch(endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-amz-json-1.0',
        'x-amz-target': 'AmazonSQS.ReceiveMessage',
      },
      body: JSON.stringify({ QueueUrl: 'u/q', MaxNumberOfMessages: 10, WaitTimeSeconds: seconds }),
      signal,
    });
    const { Messages } = (await response.json()) as {
      Messages: { Body: string; Attributes: { ApproximateReceiveCount: string } }[];
    };
    return Messages.map((m) => [m.Body, m.Attributes.ApproximateReceiveCount]);
  };
  const waiting = () => until(() => queue.listening() === 1, 'a receive waiting');

  // Woken by the message, not by the wait's end (20 s), when the last look would find it too.
  const WOKEN_WITHIN_MS = 15_000;

  it('a receive that finds nothing answers the batch sent while it waits, whole', async () => {
    const received = receive(20);
    await waiting();
    const sent = Date.now();
    queue.send('one');
    queue.send('two');
    expect(await received).toEqual([
      ['one', '1'],
      ['two', '1'],
    ]);
    expect(Date.now() - sent).toBeLessThan(WOKEN_WITHIN_MS);
    expect(queue.listening()).toBe(0);
  });

  it('a message that becomes visible while a receive waits is answered', async () => {
    queue.send('back');
    const [taken] = queue.receive(1, 30);
    const received = receive(20);
    await waiting();
    const changed = Date.now();
    // Visible again a moment from now: the queue's own timer wakes the receive.
    expect(queue.changeVisibility(taken!.receiptHandle!, 0.05)).toBe('changed');
    expect(await received).toEqual([['back', '2']]);
    expect(Date.now() - changed).toBeLessThan(WOKEN_WITHIN_MS);
  });

  it('an empty queue answers nothing once the wait has passed, not before', async () => {
    const started = Date.now();
    expect(await receive(1)).toEqual([]);
    // A lower bound only: a busy machine answers later, never sooner.
    expect(Date.now() - started).toBeGreaterThanOrEqual(990);
    expect(queue.listening()).toBe(0);
  });

  it('a receive abandoned while it waits takes nothing sent after it', async () => {
    const abort = new AbortController();
    const received = receive(20, abort.signal).catch((error: Error) => error.name);
    await waiting();
    abort.abort();
    expect(await received).toBe('AbortError');
    await until(() => queue.listening() === 0, 'the abandoned receive stops waiting');
    queue.send('kept');
    expect(queue.receive(10).map((m) => [m.body, m.receiveCount])).toEqual([['kept', 1]]);
  });
});
