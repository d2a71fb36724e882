/**
 * `@plant-store/client` and kept-alive connections that close before the answer: whether the
 * connection is fresh or carried earlier answers, the server may have read and acted on the
 * request, so each is an attempt that may have acted: sent again only within `retries`, and a
 * delete or a conditional change retried after it reports what the lost attempt did. Real
 * sockets on loopback, Node's own `fetch`.
 */
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { ConnectionError, PlantStore, PreconditionFailedError } from '@plant-store/client';

const TOKEN = 'pst_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB';
const PLANT = '{"id":1,"name":"Monstera"}';

/**
 * A keep-alive HTTP server that answers `answers` requests on each connection and then closes
 * it, unread, when the next one arrives: what a client sees when the server closed an idle
 * connection as the request went out. `received` counts the requests it answered.
 */
async function closingServer(answers: number) {
  let received = 0;
  let connections = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    connections++;
    sockets.add(socket);
    let answered = 0;
    socket.on('data', () => {
      if (answered === answers) return void socket.destroy();
      answered++;
      received++;
      socket.write(
        `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${PLANT.length}\r\n` +
          `connection: keep-alive\r\nkeep-alive: timeout=60\r\n\r\n${PLANT}`,
      );
    });
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received: () => received,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A client with `retries` quick retries that counts what it hands to `fetch`. */
function counting(baseUrl: string, retries: number) {
  const sent = { count: 0 };
  const store = new PlantStore({
    baseUrl,
    token: TOKEN,
    retry: { retries, baseDelayMs: 1 },
    logLevel: 'off',
    fetch: (request) => {
      sent.count++;
      return fetch(request);
    },
  });
  return { store, sent };
}

it('a call on a pooled connection the server closed is retried on a fresh one', async () => {
  const server = await closingServer(1);
  try {
    const { store, sent } = counting(server.url, 3);
    for (let call = 0; call < 6; call++) {
      await expect(store.getPlant(1)).resolves.toEqual({ id: 1n, name: 'Monstera' });
    }
    expect(server.received()).toBe(6);
    // fetch pooled the connections: some calls went out on one the server had closed (each
    // connection answered one request) and were retried.
    expect(sent.count).toBeGreaterThan(6);
    expect(server.connections()).toBe(6);
  } finally {
    await server.close();
  }
});

it('a pooled connection that closes before a write is answered is an attempt: retries: 0 throws ConnectionError', async () => {
  const server = await closingServer(1);
  try {
    const { store, sent } = counting(server.url, 0);
    // Calls until one goes out on a connection that answered before (fetch pools them). A read
    // would be sent again, not counted; a write may have been read and acted on.
    let error: unknown;
    for (let call = 0; call < 20 && error === undefined; call++) {
      error = await store.patchPlant(1, { name: 'x' }).then(
        () => undefined,
        (e: unknown) => e,
      );
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(error).toBeInstanceOf(ConnectionError);
    // That call's one request was its only attempt: not sent again.
    expect(sent.count).toBe(server.received() + 1);
  } finally {
    await server.close();
  }
});

it('a fresh connection that closes before any answer is an attempt: retries: 0 throws ConnectionError', async () => {
  const server = await closingServer(0);
  try {
    const { store, sent } = counting(server.url, 0);
    const error = await store.getPlant(1).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(sent.count).toBe(1);
    expect(server.connections()).toBe(1);
  } finally {
    await server.close();
  }
});

it('reads made right after the server closed its idle connections all succeed, retries 0 too', async () => {
  let received = 0;
  const server = createHttpServer((request, response) => {
    received++;
    request.resume();
    response.setHeader('content-type', 'application/json').end(PLANT);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { store } = counting(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, 0);
    for (let call = 0; call < 5; call++) {
      await store.getPlant(1);
      server.closeIdleConnections();
      // The close is on its way when the next call writes its request (Node 20's fetch loses it).
      await new Promise((resolve) => setImmediate(resolve));
    }
    await expect(store.getPlant(1)).resolves.toEqual({ id: 1n, name: 'Monstera' });
    expect(received).toBe(6);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/**
 * A keep-alive HTTP server over one plant (id 7, version `version`) that acts on each request
 * and then, for the first change or delete it makes, closes the connection instead of
 * answering: the answer is lost after the write, on a connection that carried a read before.
 */
async function losingServer() {
  const state = { exists: true, name: 'Monstera', version: 1, writes: 0 };
  let lose = true;
  const answer = (response: ServerResponse, status: number, body?: object) => {
    const headers = { 'content-type': 'application/json', etag: `"${state.version}"` };
    response.writeHead(status, headers).end(body === undefined ? undefined : JSON.stringify(body));
  };
  const server = createHttpServer((request: IncomingMessage, response: ServerResponse) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      if (!state.exists)
        return answer(response, 404, { error: 404, message: 'no plant with id 7' });
      const plant = { id: 7, name: state.name };
      if (request.method === 'GET') return answer(response, 200, plant);
      const ifMatch = request.headers['if-match'];
      if (ifMatch !== undefined && ifMatch !== `"${state.version}"`) {
        return answer(response, 412, {
          error: 412,
          message: `plant 7 is at version ${state.version}`,
        });
      }
      state.writes++;
      if (request.method === 'DELETE') state.exists = false;
      else {
        state.name = (JSON.parse(body) as { name: string }).name;
        state.version++;
      }
      if (lose) {
        lose = false;
        return void request.socket.destroy();
      }
      if (request.method === 'DELETE') answer(response, 204);
      else answer(response, 200, { id: 7, name: state.name });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    state,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A moment for fetch to take back the connection a read was answered on, for the next call. */
const backInThePool = () => new Promise((resolve) => setTimeout(resolve, 20));

it('deletePlant whose answer is lost on a pooled connection is an attempt: true after a retry, ConnectionError with retries: 0', async () => {
  for (const retries of [1, 0]) {
    const server = await losingServer();
    try {
      const { store, sent } = counting(server.url, retries);
      await store.getPlant(7);
      await backInThePool();
      const deleted = store.deletePlant(7);
      if (retries === 0) await expect(deleted).rejects.toBeInstanceOf(ConnectionError);
      // The retry finds nothing: the lost attempt deleted it.
      else await expect(deleted).resolves.toBe(true);
      expect(server.state).toMatchObject({ exists: false, writes: 1 });
      expect(sent.count).toBe(2 + retries);
    } finally {
      await server.close();
    }
  }
});

it('the guide’s ifMatch loop applies a change once when its answer is lost on a pooled connection', async () => {
  const server = await losingServer();
  try {
    const { store, sent } = counting(server.url, 3);
    let refusals = 0;
    for (;;) {
      const plant = await store.getPlant(7);
      await backInThePool();
      try {
        const changed = await store.patchPlant(
          7,
          { name: `${plant.name} (checked)` },
          { ifMatch: plant.version },
        );
        expect([changed, (changed as { version?: number }).version]).toEqual([
          { id: 7n, name: 'Monstera (checked)' },
          2,
        ]);
        break;
      } catch (error) {
        if (!(error instanceof PreconditionFailedError) || ++refusals > 1) throw error;
      }
    }
    expect(server.state).toMatchObject({ name: 'Monstera (checked)', version: 2, writes: 1 });
    // The read, the PATCH whose answer was lost, its retry (412), and the read that tells.
    expect(sent.count).toBe(4);
  } finally {
    await server.close();
  }
});
