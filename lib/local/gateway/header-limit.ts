/**
 * API Gateway's quota on the request line plus the header values (10,240 bytes), answered as a
 * JSON 431 with the CORS headers and a log line whichever part of the server notices it.
 */
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { ANSWERS } from './answers';
import { newRequestId } from './events';

/** API Gateway's quota on the request line plus the header values, in bytes. [doc] */
export const MAX_REQUEST_LINE_AND_HEADER_BYTES = 10_240;

/**
 * Node's own header limit, above the quota so that the exact count (which leaves header names
 * out, as the quota does) decides; past it Node stops parsing and `answerParseError` answers.
 */
export const NODE_MAX_HEADER_SIZE = 16 * 1024;

/** Bytes counted against the quota (Node delivers header text as latin1: a character a byte). */
export function requestLineAndHeaderBytes(req: IncomingMessage): number {
  let bytes = `${req.method} ${req.url} HTTP/${req.httpVersion}`.length;
  for (let i = 1; i < req.rawHeaders.length; i += 2) bytes += req.rawHeaders[i]!.length;
  return bytes;
}

/**
 * Answers a request Node could not parse (the server's `clientError`): past Node's header limit
 * API Gateway's JSON 431 with `headers` (CORS: the origin is unknown then, so a listed origin
 * cannot be echoed) and a log line, instead of Node's bare 431; other errors as Node does.
 */
export function answerParseError(
  error: NodeJS.ErrnoException,
  socket: Socket,
  headers: Readonly<Record<string, string>>,
  log: (line: string) => void,
): void {
  if (!socket.writable || socket.bytesWritten > 0) {
    socket.destroy();
    return;
  }
  if (error.code !== 'HPE_HEADER_OVERFLOW') {
    const status =
      error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? '408 Request Timeout' : '400 Bad Request';
    socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\n\r\n`);
    socket.destroy();
    return;
  }
  const requestId = newRequestId();
  const answer = ANSWERS.headersTooLarge();
  const head = Object.entries({
    ...answer.headers,
    ...headers,
    'apigw-requestid': requestId,
    'content-length': String(answer.body.length),
    connection: 'close',
  })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.end(`HTTP/1.1 431 Request Header Fields Too Large\r\n${head}\r\n${answer.body}`);
  // Give the client, perhaps still sending, a moment to read the answer before the close.
  setTimeout(() => socket.destroy(), 1000).unref();
  log(`- (headers over ${NODE_MAX_HEADER_SIZE} bytes) 431 ${requestId}`);
}
