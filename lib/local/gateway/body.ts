/**
 * Request bodies, read only once a request is routed and authorized: stored up to the payload
 * limit, or dropped as they arrive, never stored, when the gateway answers without them.
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
 * Reads and drops whatever of the body is still to come, so that a client still sending can
 * read the answer (closing at once could reset the connection under it). Resolves `true` once
 * the body has ended, `false` when the connection is gone, past `limit` more bytes or after
 * `lingerMs` (the caller then closes the connection).
 */
export function discardBody(
  req: IncomingMessage,
  limit: number,
  lingerMs: number,
): Promise<boolean> {
  if (req.readableEnded) return Promise.resolve(true);
  if (req.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    let size = 0;
    const timer = setTimeout(() => resolve(false), lingerMs);
    const settle = (ended: boolean) => {
      clearTimeout(timer);
      resolve(ended);
    };
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) settle(false);
    });
    req.once('end', () => settle(true)).once('close', () => settle(false));
    req.resume();
  });
}
