/**
 * A proxy between the functions' SDK client and a real engine, scripted per DynamoDB operation,
 * on real sockets: the client's connections go to it (its requests still name the engine's Host,
 * which the local engine requires). What it does to the next request of an operation:
 * - `drop`: passes it on, then, once `meanwhile` (another client's requests) is done, closes the
 *   connection instead of answering (the answer lost), or answers DynamoDB's 500;
 * - `unsent`: the same without passing it on: the try is not made;
 * - `hold`: closes the connection and keeps the request, for the test to pass on later (`land`);
 * - `hang`: never answers (the SDK's request timeout, `BOUNDED_CALLS`, fires) and never passes
 *   it on;
 * - `before`: runs `run`, then passes it on and answers as the engine does.
 * `seen` lists every operation that reached it, retries included.
 */
import { Agent, createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { makeDocumentClient } from '../../lambda/aws/dynamodb';
import { BOUNDED_CALLS } from '../../lambda/aws/sdk-client';
import { plantOperations } from './plant-operations';
import type { TestStore } from './store';

export type ProxyAction =
  | {
      readonly kind: 'drop' | 'unsent';
      readonly meanwhile?: () => Promise<unknown>;
      readonly serverError?: boolean;
    }
  | { readonly kind: 'hold'; readonly held: (land: () => Promise<number>) => void }
  | { readonly kind: 'hang' }
  | { readonly kind: 'before'; readonly run: () => Promise<unknown> };

interface Answer {
  readonly status: number;
  readonly headers: IncomingMessage['headers'];
  readonly body: Buffer;
}

/** DynamoDB's answer to a request it may or may not have carried out. */
function serverError(res: ServerResponse): void {
  res.writeHead(500, { 'content-type': 'application/x-amz-json-1.0' });
  res.end(
    '{"__type":"com.amazonaws.dynamodb.v20120810#InternalServerError","message":"Internal server error"}',
  );
}

export async function engineProxy(target: string) {
  const seen: string[] = [];
  const script = new Map<string, ProxyAction[]>();
  const forward = (req: IncomingMessage, body: Buffer) =>
    new Promise<Answer>((resolve, reject) => {
      const upstream = request(
        `${target}${req.url ?? '/'}`,
        { method: req.method, headers: req.headers },
        (answer) => {
          const chunks: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => chunks.push(chunk));
          answer.on('end', () =>
            resolve({
              status: answer.statusCode ?? 500,
              headers: answer.headers,
              body: Buffer.concat(chunks),
            }),
          );
        },
      );
      upstream.on('error', reject);
      upstream.end(body);
    });
  const server = createServer((req, res) => {
    const operation = String(req.headers['x-amz-target'] ?? '').split('.')[1] ?? '?';
    seen.push(operation);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const body = Buffer.concat(chunks);
      const action = script.get(operation)?.shift();
      if (action?.kind === 'hang') return;
      if (action?.kind === 'hold') {
        res.socket?.destroy();
        action.held(async () => (await forward(req, body)).status);
        return;
      }
      if (action?.kind === 'before') await action.run();
      if (action?.kind !== 'unsent') {
        const answer = await forward(req, body);
        if (action?.kind !== 'drop') {
          res.writeHead(answer.status, answer.headers);
          return void res.end(answer.body);
        }
      }
      await action.meanwhile?.();
      if (action.serverError) serverError(res);
      else res.socket?.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const agent = new Agent({ keepAlive: true });
  agent.createConnection = () => connect(port, '127.0.0.1');
  return {
    /** An agent whose every connection goes to the proxy. */
    agent,
    seen,
    /** What to do with the next requests of `operation`, one action each, in order. */
    next(operation: string, ...actions: ProxyAction[]) {
      script.set(operation, [...(script.get(operation) ?? []), ...actions]);
    },
    close: () =>
      new Promise<void>((resolve) => {
        agent.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * For each test of a suite: an `engineProxy` to the engine of `store()` and a document client as
 * the functions make it, whose every connection goes through that proxy; `ops()` are the plant
 * operations over it.
 */
export function useEngineProxy(store: () => TestStore) {
  let proxy: Awaited<ReturnType<typeof engineProxy>>;
  let client: DynamoDBDocumentClient;
  beforeEach(async () => {
    proxy = await engineProxy(String(store().engine.clientConfig.endpoint));
    client = makeDocumentClient({
      ...store().engine.clientConfig,
      // The functions' own timeouts, with the proxy's agent.
      requestHandler: { ...BOUNDED_CALLS.requestHandler, httpAgent: proxy.agent },
    });
  });
  afterEach(async () => {
    client.destroy();
    await proxy.close();
  });
  return {
    get proxy() {
      return proxy;
    },
    /** The plant operations (`plantOperations`) through the proxy, for this test. */
    ops: () => plantOperations({ ...store(), plants: client }),
  };
}
