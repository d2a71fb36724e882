/** A free TCP port on 127.0.0.1, for processes that must be told their port up front. */
import { createServer } from 'node:net';

/** Asks the OS for a free loopback port and releases it. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Rejects (with `EADDRINUSE`) when `port` on 127.0.0.1 is taken, for ports given up front. */
export async function checkPortFree(port: number): Promise<void> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  await new Promise((resolve) => server.close(resolve));
}
