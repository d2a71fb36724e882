/**
 * Request bodies, read only once a request is routed and authorized: stored up to the payload
 * limit, or discarded unread-into-memory when the gateway answers without them.
 */
import type { IncomingMessage } from 'node:http';

/**
 * The whole body, or `undefined` as soon as it passes `limit` bytes (what arrived is dropped and
 * reading stops; the caller answers 413 and discards the rest).
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => {
      req.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) {
        chunks.push(chunk);
        return;
      }
      stop();
      req.pause();
      chunks.length = 0;
      resolve(undefined);
    };
    const onEnd = () => {
      stop();
      resolve(Buffer.concat(chunks, size));
    };
    const onError = (error: Error) => {
      stop();
      reject(error);
    };
    const onClose = () => onError(new Error('the client closed the request before its end'));
    req.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  });
}

/**
 * Reads and drops whatever of the body is still to come, so that the client, still sending,
 * can read the answer (closing at once could reset the connection under it); past `limit`
 * more bytes the connection is closed instead.
 */
export function discardBody(req: IncomingMessage, limit: number): void {
  if (req.readableEnded || req.destroyed) return;
  let size = 0;
  req.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > limit) req.socket.destroy();
  });
  req.resume();
}
