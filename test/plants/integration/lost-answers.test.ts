/**
 * A write the store made whose answer was lost on the way back, on real engines through a real
 * socket: the client's connections go to a proxy (its requests still name the engine's Host,
 * which the local engine requires), which passes the UpdateItem on, reads the engine's answer,
 * and closes the connection instead of passing it on. The SDK sends the write again; its condition then fails
 * on the item the first try wrote. The answer must be the one the write earned: 204 for a
 * delete, 200 with the new version for a change, never 404 or 412 for a write that was made.
 */
import { makeDocumentClient } from '../../../lambda/aws/dynamodb';
import { PLANTS_TABLE } from '../../../lambda/aws/tables';
import { makeDeletePlantHandler } from '../../../lambda/delete-plant/handler';
import { makePatchPlantHandler } from '../../../lambda/patch-plant/handler';
import { makeUpdatePlantHandler } from '../../../lambda/update-plant/handler';
import { Agent, createServer, request, type IncomingMessage, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { TestStore } from '../../support/store';
import { plantsEvent } from '../../support/events';
import { realEngines, usePlantStore, type PlantOperations } from '../../support/plant-operations';

/**
 * A proxy to `target` that drops the engine's answer to the first request of `operation` made
 * after `dropNext`: the request reaches the engine and is carried out, the client sees its
 * connection closed (once what `dropNext` was given to do meanwhile is done). `seen` lists every
 * operation passed on, retries included.
 */
async function lossyProxy(target: string) {
  const seen: string[] = [];
  let drop: string | undefined;
  let meanwhile: (() => Promise<unknown>) | undefined;
  const server: Server = createServer((req, res) => {
    const operation = String(req.headers['x-amz-target'] ?? '').split('.')[1] ?? '?';
    seen.push(operation);
    const dropThis = operation === drop;
    const before = meanwhile;
    if (dropThis) [drop, meanwhile] = [undefined, undefined];
    const upstream = request(
      `${target}${req.url ?? '/'}`,
      { method: req.method, headers: req.headers },
      (answer: IncomingMessage) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', async () => {
          if (dropThis) {
            await before?.();
            return void res.socket?.destroy();
          }
          res.writeHead(answer.statusCode ?? 500, answer.headers);
          res.end(Buffer.concat(chunks));
        });
      },
    );
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const agent = new Agent({ keepAlive: true });
  agent.createConnection = () => connect(port, '127.0.0.1');
  return {
    /** An agent whose every connection goes to the proxy. */
    agent,
    seen,
    /** Drops the next answer to `operation`, after running `then` (another client's requests). */
    dropNext(operation: string, then?: () => Promise<unknown>) {
      drop = operation;
      meanwhile = then;
    },
    close: () =>
      new Promise<void>((resolve) => {
        agent.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe.each(realEngines())('on $engine', ({ start }) => {
  let store: TestStore;
  let ops: PlantOperations;
  usePlantStore(start, (s, o) => void ([store, ops] = [s, o]));

  let proxy: Awaited<ReturnType<typeof lossyProxy>>;
  let client: DynamoDBDocumentClient;
  beforeEach(async () => {
    proxy = await lossyProxy(String(store.engine.clientConfig.endpoint));
    client = makeDocumentClient({
      ...store.engine.clientConfig,
      requestHandler: { httpAgent: proxy.agent },
    });
  });
  afterEach(async () => {
    client.destroy();
    await proxy.close();
  });

  const deps = () => ({ plants: client, tableName: PLANTS_TABLE.localName });
  const one = (method: 'DELETE' | 'PUT' | 'PATCH', id: string) => ({
    method,
    route: '/plants/{id}',
    pathParameters: { id },
  });

  it('a DELETE whose answer was lost answers 204, not 404', async () => {
    await ops.create('9007199254740993', 'Aloe');
    proxy.dropNext('UpdateItem');
    const answer = await makeDeletePlantHandler(deps())(
      plantsEvent({ ...one('DELETE', '9007199254740993') }),
    );
    expect(proxy.seen.filter((operation) => operation === 'UpdateItem')).toHaveLength(2);
    expect(answer.statusCode).toBe(204);
    expect((await ops.get('9007199254740993')).statusCode).toBe(404);
    // A delete made again by another request still finds no plant.
    expect((await ops.remove('9007199254740993')).statusCode).toBe(404);
  });

  it('a DELETE whose answer was lost leaves the plant created before its repeat, and answers 204', async () => {
    await ops.create('-9223372036854775808', 'Aloe');
    proxy.dropNext('UpdateItem', () => ops.create('-9223372036854775808', 'Aloe again'));
    const answer = await makeDeletePlantHandler(deps())(
      plantsEvent({ ...one('DELETE', '-9223372036854775808') }),
    );
    expect(proxy.seen.filter((operation) => operation === 'UpdateItem')).toHaveLength(2);
    expect(answer.statusCode).toBe(204);
    // The plant created in between is the next life (versions 1, 2 deleted, 3), and stays.
    expect(await ops.get('-9223372036854775808')).toMatchObject({
      statusCode: 200,
      headers: { etag: '"3"' },
      body: '{"id":-9223372036854775808,"name":"Aloe again"}',
    });
    // A delete of it by another request deletes it.
    expect((await ops.remove('-9223372036854775808')).statusCode).toBe(204);
  });

  it('a PUT with If-Match whose answer was lost answers 200 and the new ETag, not 412', async () => {
    await ops.create('9007199254740995', 'Aloe', 'succulent');
    proxy.dropNext('UpdateItem');
    const answer = await makeUpdatePlantHandler(deps())(
      plantsEvent({
        ...one('PUT', '9007199254740995'),
        headers: { 'if-match': '"1"' },
        body: '{"name":"Aloe vera"}',
      }),
    );
    expect(proxy.seen.filter((operation) => operation === 'UpdateItem')).toHaveLength(2);
    expect(answer).toMatchObject({
      statusCode: 200,
      headers: { etag: '"2"' },
      body: '{"id":9007199254740995,"name":"Aloe vera"}',
    });
    expect((await ops.get('9007199254740995')).headers).toMatchObject({ etag: '"2"' });
    // The ETag it answered is the plant's: another editor's If-Match "1" is refused.
    expect(await ops.patch('9007199254740995', '{"tag":"x"}', { 'if-match': '"1"' })).toMatchObject(
      { statusCode: 412 },
    );
  });

  it('a PATCH whose answer was lost answers the change it made', async () => {
    await ops.create('17', 'Fern', 'pteridophyte');
    proxy.dropNext('UpdateItem');
    const answer = await makePatchPlantHandler(deps())(
      plantsEvent({ ...one('PATCH', '17'), body: '{"tag":null}' }),
    );
    expect(answer).toMatchObject({
      statusCode: 200,
      headers: { etag: '"2"' },
      body: '{"id":17,"name":"Fern"}',
    });
  });

  it('a write that finds another write there is still refused', async () => {
    await ops.create('18', 'Ivy');
    expect((await ops.put('18', '{"name":"English ivy"}')).statusCode).toBe(200);
    const refused = await makeUpdatePlantHandler(deps())(
      plantsEvent({ ...one('PUT', '18'), headers: { 'if-match': '"1"' }, body: '{"name":"x"}' }),
    );
    expect(refused).toMatchObject({ statusCode: 412, headers: { etag: '"2"' } });
    expect((await ops.remove('18')).statusCode).toBe(204);
    const gone = await makeDeletePlantHandler(deps())(plantsEvent({ ...one('DELETE', '18') }));
    expect(gone.statusCode).toBe(404);
  });
});
