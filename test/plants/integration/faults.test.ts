/**
 * Faults a real engine cannot be made to produce: throttling (injected into the SDK's stack,
 * inside its retry loop), an unreachable or silent store (real sockets) and a bug. Each answers
 * an honest Error, and a 5xx body says nothing of internals.
 */
import { ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { makeCreatePlantHandler } from '../../../lambda/create-plant/handler';
import { makeDocumentClient } from '../../../lambda/aws/dynamodb';
import { LOCAL_REGION } from '../../../lib/local/dynamodb/engine';
import { createPlantEvent, plantBody } from '../../support/events';
import { captureOutput, type CapturedOutput } from '../../support/output';
import { countRequests, startTestStore, type TestStore } from '../../support/store';

/** Nothing listens where these go: any keys do. */
const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

const UNAVAILABLE = {
  error: 503,
  message: 'the store is unavailable; retry after the number of seconds in Retry-After',
};

async function createWith(plants: DynamoDBDocumentClient, requestId = 'req-fault') {
  const handler = makeCreatePlantHandler({ plants, tableName: 'plants' });
  const answer = await handler(
    createPlantEvent({ body: plantBody('42', { name: 'Aloe' }), requestId }),
  );
  return { ...answer, json: JSON.parse(answer.body ?? '') as unknown };
}

function clientFor(endpoint: string): DynamoDBDocumentClient {
  return makeDocumentClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
}

/** A TCP server on loopback; `silent` accepts connections and never answers. */
async function listen(onConnection: (socket: Socket) => void): Promise<Server> {
  const server = createServer(onConnection);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

let logged: CapturedOutput;
beforeEach(() => {
  logged = captureOutput();
});
afterEach(() => {
  logged.restore();
});

describe('store unavailable', () => {
  let store: TestStore;
  beforeAll(async () => {
    store = await startTestStore();
  });
  afterAll(async () => {
    await store.close();
  });

  it('throttling, after the SDK retried it, is 503 with Retry-After and writes nothing', async () => {
    const plants = makeDocumentClient(store.engine.clientConfig);
    const attempts = countRequests(plants);
    plants.middlewareStack.add(
      () => async () => {
        throw new ProvisionedThroughputExceededException({
          message: 'The level of configured provisioned throughput for the table was exceeded',
          $metadata: {},
        });
      },
      { step: 'deserialize', name: 'throttle' },
    );
    const answer = await createWith(plants);
    expect(answer.statusCode).toBe(503);
    expect(answer.headers).toMatchObject({
      'retry-after': '1',
      'content-type': 'application/json',
    });
    expect(answer.json).toEqual(UNAVAILABLE);
    expect(attempts).toEqual(['PutItemCommand', 'PutItemCommand', 'PutItemCommand']);
    expect(await store.readStored('42')).toBeUndefined();
    plants.destroy();
  });

  it('a network error (nothing listening) is 503 with Retry-After', async () => {
    const server = await listen(() => undefined);
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    const plants = clientFor(`http://127.0.0.1:${port}`);
    const answer = await createWith(plants);
    expect(answer.statusCode).toBe(503);
    expect(answer.headers).toMatchObject({ 'retry-after': '1' });
    expect(answer.json).toEqual(UNAVAILABLE);
    plants.destroy();
  });

  it('a store that accepts and never answers times out into 503', async () => {
    const sockets: Socket[] = [];
    const server = await listen((socket) => sockets.push(socket));
    const { port } = server.address() as AddressInfo;
    const plants = clientFor(`http://127.0.0.1:${port}`);
    const answer = await createWith(plants);
    expect(answer.statusCode).toBe(503);
    expect(answer.json).toEqual(UNAVAILABLE);
    expect(sockets.length).toBeGreaterThanOrEqual(1);
    plants.destroy();
    sockets.forEach((socket) => socket.destroy());
    await new Promise((resolve) => server.close(resolve));
  });
});

describe('a bug', () => {
  it('is 500 with a generic body; the details reach the log with the request id', async () => {
    const plants = clientFor('http://127.0.0.1:9');
    plants.middlewareStack.add(
      () => async () => {
        throw new TypeError('secret-table-arn arn:aws:dynamodb:eu-west-1:123456789012 exploded');
      },
      { step: 'initialize', name: 'bug' },
    );
    const answer = await createWith(plants, 'req-bug-1');
    expect(answer.statusCode).toBe(500);
    expect(answer.headers).not.toHaveProperty('retry-after');
    expect(answer.json).toEqual({
      error: 500,
      message: 'internal error; the request id identifies it in the service log',
    });
    expect(answer.body).not.toMatch(/secret|arn|TypeError|exploded/);
    const log = logged.lines.join('\n');
    expect(log).toContain('req-bug-1');
    expect(log).toContain('secret-table-arn');
    plants.destroy();
  });
});
