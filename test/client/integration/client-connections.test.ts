/**
 * `@plant-store/client` and kept-alive connections the server has closed: a request written to
 * such a connection never reached the server, so it is sent again on a fresh one whatever
 * `retries` says; a connection that ends before its first answer may have been read, and
 * counts as an attempt. Real sockets on loopback, Node's own `fetch`.
 */
import { createServer as createHttpServer } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { ConnectionError, PlantStore } from '@plant-store/client';

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

/** A client with no retries that counts what it hands to `fetch`. */
function noRetries(baseUrl: string) {
  const sent = { count: 0 };
  const store = new PlantStore({
    baseUrl,
    token: TOKEN,
    retry: { retries: 0 },
    logLevel: 'off',
    fetch: (request) => {
      sent.count++;
      return fetch(request);
    },
  });
  return { store, sent };
}

it('a call on a pooled connection the server closed is sent again on a fresh one, with retries: 0', async () => {
  const server = await closingServer(1);
  try {
    const { store, sent } = noRetries(server.url);
    for (let call = 0; call < 6; call++) {
      await expect(store.getPlant(1)).resolves.toEqual({ id: 1n, name: 'Monstera' });
    }
    expect(server.received()).toBe(6);
    // fetch pooled the connections: some calls went out on one the server had closed (each
    // connection answered one request) and were sent again.
    expect(sent.count).toBeGreaterThan(6);
    expect(server.connections()).toBe(6);
  } finally {
    await server.close();
  }
});

it('a fresh connection that closes before any answer is an attempt: retries: 0 throws ConnectionError', async () => {
  const server = await closingServer(0);
  try {
    const { store, sent } = noRetries(server.url);
    const error = await store.getPlant(1).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(sent.count).toBe(1);
    expect(server.connections()).toBe(1);
  } finally {
    await server.close();
  }
});

it('calls made right after the server closed its idle connections all succeed with retries: 0', async () => {
  let received = 0;
  const server = createHttpServer((request, response) => {
    received++;
    request.resume();
    response.setHeader('content-type', 'application/json').end(PLANT);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { store } = noRetries(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
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
