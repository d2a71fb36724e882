/**
 * Every SQS call of the webhook functions ends by `SQS_CALL_MAX_MS` (9 s), whatever the server
 * does: here SQS answers a call's headers at once and then never sends the rest of the body, a
 * stall no attempt timeout covers (the client's request timeout runs until the headers arrive;
 * then it is reading the body). Without the call's abort signal nothing ends such a call: the
 * real client waits as long as the server holds it; with it, the call fails at 9 s, as the SDK's
 * `AbortError`, sent once, and the fan-out's reserve, derived from
 * the same constant, still leaves it time to answer Lambda. The test waits those 9 s: the
 * bound is the behaviour under test, and a shorter one would not be the deployed code.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FAN_OUT_RESERVE_MS } from '../../../lambda/fan-out/fan-out';
import {
  SQS_CALL_MAX_MS,
  makeSqsClient,
  sqsDeliveryQueue,
  sqsJsonQueue,
} from '../../../lambda/webhook/delivery-queue';
import { LOCAL_REGION } from '../../../lib/local/dynamodb/engine';

const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

/** A server that sends a JSON answer's headers and first byte, then nothing, until closed. */
async function startHeadersThenStall() {
  const held: ServerResponse[] = [];
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(200, {
        'content-type': 'application/x-amz-json-1.0',
        'content-length': '1000',
      });
      response.write('{');
      held.push(response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    requests: () => held.length,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let server: Awaited<ReturnType<typeof startHeadersThenStall>>;
beforeAll(async () => {
  server = await startHeadersThenStall();
});
afterAll(() => server.close());

const client = () =>
  makeSqsClient({
    endpoint: server.endpoint,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
  });

/** Runs `call`, and answers how it failed and after how long (it must fail). */
async function failure(call: () => Promise<unknown>) {
  const started = performance.now();
  const error = await call().then(
    () => undefined,
    (thrown: unknown) => thrown as Error,
  );
  return { error, ms: performance.now() - started };
}

it('leaves the fan-out time to answer after a call held to the bound', () => {
  expect(FAN_OUT_RESERVE_MS).toBeGreaterThan(SQS_CALL_MAX_MS);
});

// Every kind of call at once: one 9 s wait for the three.
it(
  'a batch send (the fan-out, replay, re-queueing), a visibility change (a retry later) and a put (dead letters, the stream failure queue) end at the bound',
  async () => {
    const deliveries = sqsDeliveryQueue(`${server.endpoint}/000000000000/deliveries`, client());
    const failures = sqsJsonQueue(`${server.endpoint}/000000000000/failures`, client());
    const calls = await Promise.all([
      failure(() => deliveries.sendBatch([{ id: '0', message: {} as never, body: '{}' }])),
      failure(() => deliveries.retryAfter('receipt', 5)),
      failure(() => failures.put({ plant: 1 })),
    ]);
    for (const { error, ms } of calls) {
      expect(error?.name).toBe('AbortError');
      // Not before the bound: the abort ended it, not an attempt's timeout.
      expect(ms).toBeGreaterThanOrEqual(SQS_CALL_MAX_MS - 50);
    }
    // One request each: the SDK sends nothing again after an abort.
    expect(server.requests()).toBe(3);
  },
  SQS_CALL_MAX_MS + 6_000,
);
