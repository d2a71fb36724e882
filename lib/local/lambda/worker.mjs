// One Lambda sandbox: a process of its own, on Lambda's Node, with only the function's
// environment. It imports the bundle once (the cold start), then runs one invocation at a time
// for the parent, keeping module scope between them, as a warm Lambda sandbox does.
// Buffer, performance and the timers are Node's globals, and node:url is read without importing
// it: importing a built-in builds an ES module facade of it (~6 ms of CPU at every sandbox's start
// for these, which Lambda's runtime does not spend). node:fs the bundles import too.
/* global Buffer, performance, setInterval, clearInterval */
import { closeSync, openSync, readSync } from 'node:fs';

const { pathToFileURL } = process.getBuiltinModule('node:url');

const bundle = process.env.PLANT_STORE_BUNDLE;
// sandbox.ts's END_MARK: it starts the line that ends an invocation (see `answer`).
const END_MARK = process.env.PLANT_STORE_END_MARK ?? '';
const send = (message) => {
  // The parent may be gone (killed outright); then there is nobody to tell.
  if (process.connected) process.send(message, (error) => error && process.exit(1));
};

// Ctrl-C signals the whole process group: the parent decides when a sandbox stops, by
// disconnecting once its invocation is answered (or by dying, even killed outright).
process.on('SIGINT', () => undefined);
process.on('SIGTERM', () => undefined);
process.on('disconnect', () => process.exit(0));

// Peak resident memory, what Lambda's "Max Memory Used" reports. Linux keeps it for this
// process: VmHWM in /proc/self/status, counted from its exec, read once an invocation ends
// (getrusage's maxRSS would not do: it survives exec, so it counts the parent this process was
// forked from). The file is opened once and read from its start each time, into one buffer.
// Elsewhere (macOS) it is sampled every 20 ms while an invocation runs.
const status = (() => {
  try {
    return openSync('/proc/self/status', 'r');
  } catch {
    return undefined;
  }
})();
const statusBuffer = Buffer.alloc(8192);
const highWaterMark = () => {
  if (status === undefined) return undefined;
  try {
    const text = statusBuffer.toString('latin1', 0, readSync(status, statusBuffer, 0, 8192, 0));
    const kib = /^VmHWM:\s+(\d+) kB$/m.exec(text)?.[1];
    return kib === undefined ? undefined : Number(kib) * 1024;
  } catch {
    return undefined;
  }
};
const kernelKeepsPeak = highWaterMark() !== undefined;
if (!kernelKeepsPeak && status !== undefined) closeSync(status);
let peakRss = 0;
const sample = () =>
  (peakRss = Math.max(peakRss, (kernelKeepsPeak && highWaterMark()) || process.memoryUsage.rss()));
let sampler;

// What stderr had written when the last invocation ended: one that wrote to it ends it with a mark.
const written = (stream) => stream.bytesWritten ?? Number.NaN;
let stderrWritten = written(process.stderr);

/**
 * Ends an invocation: its answer as one line on stdout, after every line it printed there, so the
 * parent reads them in order on one pipe. An invocation that wrote to stderr (or where that
 * cannot be told) also ends stderr with a mark, before the answer, and the answer says so: the
 * parent logs both streams' lines before the REPORT. Without a usable stdout (a function closed
 * it) the answer goes over the IPC channel.
 */
const answer = (message) => {
  let line;
  try {
    line = JSON.stringify(message);
  } catch (error) {
    line = JSON.stringify({
      type: 'error',
      id: message.id,
      message: `the result cannot be serialized: ${error?.message ?? error}`,
      durationMs: message.durationMs,
      maxRssKiB: message.maxRssKiB,
    });
  }
  const stderrNow = written(process.stderr);
  const stderrMark = !(stderrNow === stderrWritten);
  if (!process.stdout.writable || !END_MARK) {
    send(JSON.parse(line));
    stderrWritten = written(process.stderr);
    return;
  }
  if (stderrMark) process.stderr.write(`${END_MARK}${message.id}\n`);
  stderrWritten = written(process.stderr);
  process.stdout.write(`${END_MARK}${stderrMark ? '!' : ''}${line}\n`);
};

let handler;
try {
  ({ handler } = await import(pathToFileURL(bundle).href));
  if (typeof handler !== 'function') throw new Error(`${bundle} exports no handler function`);
  sample();
  stderrWritten = written(process.stderr);
  send({ type: 'ready' });
} catch (error) {
  console.error(`init failed: ${error?.stack ?? error}`);
  send({ type: 'init-error', message: String(error?.message ?? error) });
  process.exitCode = 1;
  process.disconnect?.();
}

process.on('message', async ({ id, event, requestId, deadline }) => {
  const context = {
    awsRequestId: requestId,
    functionName: process.env.AWS_LAMBDA_FUNCTION_NAME,
    functionVersion: '$LATEST',
    memoryLimitInMB: process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE,
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
  };
  const started = performance.now();
  if (!kernelKeepsPeak) sampler = setInterval(sample, 20);
  let message;
  try {
    const result = await handler(event, context);
    message = { type: 'result', id, result: result === undefined ? null : result };
  } catch (error) {
    console.error(`invocation failed: ${error?.stack ?? error}`);
    message = { type: 'error', id, message: String(error?.message ?? error) };
  }
  const durationMs = performance.now() - started;
  clearInterval(sampler);
  sample();
  // The sandbox's peak so far, which is what Lambda's "Max Memory Used" reports.
  answer({ ...message, durationMs, maxRssKiB: peakRss / 1024 });
});
