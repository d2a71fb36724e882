/**
 * DNS isolation, with a real DNS server on loopback: it answers `ok.test` with 127.0.0.1 and
 * never answers anything about `hang.test` (reads the query, drops it). One batch of 100
 * deliveries — 90 to a subscriber at ok.test, 10 to one at hang.test — goes through the deliver
 * handler with real resolution (c-ares, its own deadline) and real HTTP: every ok.test delivery
 * arrives, verified, each host is resolved once for the batch, and the hang.test ones fail as
 * their receiver's failure (an attempt spent, the next one queued) once their deadline passes.
 */
import type { Context, SQSEvent } from 'aws-lambda';
import { createSocket, type Socket } from 'node:dgram';
import { makeDeliverHandler } from '../../../lambda/deliver/handler';
import type { DeliveryMessage } from '../../../lambda/webhook/message';
import { OpenedSecrets } from '../../../lambda/webhook/secrets';
import { TEST_SECRET_BOX } from '../../support/secret-box';
import { generateSecret } from '../../../lambda/webhook/signature';
import { startReceiver, type Receiver } from '../../support/webhook-receiver';

/** Queries seen, as `name type` (1 = A, 28 = AAAA). */
const queries: string[] = [];
let dns: Socket;
let dnsPort: number;
let receiver: Receiver;

/** The question's name, type and the end of the question section of a DNS query. */
function question(query: Buffer): { name: string; type: number; end: number } {
  const labels: string[] = [];
  let at = 12;
  while (query[at]! > 0) {
    labels.push(query.subarray(at + 1, at + 1 + query[at]!).toString('ascii'));
    at += 1 + query[at]!;
  }
  return { name: labels.join('.').toLowerCase(), type: query.readUInt16BE(at + 1), end: at + 5 };
}

/** An answer to `query`: 127.0.0.1 for an A question, no record (NODATA) for any other type. */
function answer(query: Buffer): Buffer {
  const { type, end } = question(query);
  const header = Buffer.alloc(12);
  query.copy(header, 0, 0, 2); // the query's id
  header.writeUInt16BE(0x8180, 2); // a response, recursion desired and available, no error
  header.writeUInt16BE(1, 4); // one question
  header.writeUInt16BE(type === 1 ? 1 : 0, 6); // one answer for A
  const records =
    type === 1
      ? Buffer.from([0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 127, 0, 0, 1])
      : Buffer.alloc(0);
  return Buffer.concat([header, query.subarray(12, end), records]);
}

beforeAll(async () => {
  dns = createSocket('udp4');
  dns.on('message', (query, peer) => {
    const { name, type } = question(query);
    queries.push(`${name} ${type}`);
    if (name === 'hang.test') return; // never answers
    dns.send(answer(query), peer.port, peer.address);
  });
  await new Promise<void>((resolve) => dns.bind(0, '127.0.0.1', resolve));
  dnsPort = dns.address().port;
  receiver = await startReceiver(() => 204);
});
afterAll(async () => {
  dns.close();
  await receiver.close();
});

it('one subscriber whose DNS never answers delays none of the others in its batch', async () => {
  const secret = generateSecret();
  receiver.secret = secret;
  const port = new URL(receiver.url).port;
  const subscribers: Record<string, string> = {
    sub_ok: `http://ok.test:${port}/`,
    sub_hang: `http://hang.test:${port}/`,
  };
  const copies: DeliveryMessage[] = [];
  const handle = makeDeliverHandler({
    subscriptions: {
      get: async (subscriberId) => ({
        subscriberId,
        url: subscribers[subscriberId]!,
        name: '',
        createdAt: '',
        secret: await TEST_SECRET_BOX.seal(secret, subscriberId),
      }),
    },
    secrets: new OpenedSecrets(TEST_SECRET_BOX),
    policy: { allowLoopback: true },
    dns: { servers: [`127.0.0.1:${dnsPort}`], deadlineMs: 2_000 },
    queue: {
      send: async (messages) => void copies.push(...messages),
      retryAfter: async () => undefined,
    },
    deadLetters: { deadLetter: async () => undefined },
  });
  const records = Array.from({ length: 100 }, (_, n) => {
    const subscriberId = n % 10 === 0 ? 'sub_hang' : 'sub_ok';
    return {
      messageId: `m${n}`,
      receiptHandle: `r${n}`,
      body: JSON.stringify({
        webhookId: `msg_${n}`,
        subscriberId,
        plantId: String(n),
        body: `{"id":${n},"name":"p"}`,
      }),
      attributes: { ApproximateReceiveCount: '1' },
    };
  });
  const answer = await handle({ Records: records } as unknown as SQSEvent, {} as Context);

  expect(answer).toEqual({ batchItemFailures: [] });
  const delivered = receiver.delivered();
  expect(delivered.size).toBe(90);
  expect([...delivered.values()].every((r) => r.verified)).toBe(true);
  expect(receiver.received).toHaveLength(90);
  // The ten to hang.test: the receiver's failure, its next attempt queued.
  expect(copies.map((c) => [c.subscriberId, c.attempt])).toEqual(
    Array.from({ length: 10 }, () => ['sub_hang', 1]),
  );
  // Once per host per batch: one A and one AAAA question for ok.test, however many deliveries.
  expect(queries.filter((q) => q.startsWith('ok.test ')).sort()).toEqual([
    'ok.test 1',
    'ok.test 28',
  ]);
  expect(queries.some((q) => q.startsWith('hang.test '))).toBe(true);
});
