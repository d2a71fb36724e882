// One Lambda sandbox: a process of its own, on Lambda's Node, with only the function's
// environment. It imports the bundle once (the cold start), then runs one invocation at a time
// for the parent, keeping module scope between them, as a warm Lambda sandbox does.
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { clearInterval, setInterval } from 'node:timers';
import { pathToFileURL } from 'node:url';

const bundle = process.env.PLANT_STORE_BUNDLE;
// sandbox.ts's END_MARK: written on both streams after an invocation, before its answer.
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
// forked from). Elsewhere (macOS) it is sampled every 20 ms while an invocation runs.
const highWaterMark = () => {
  try {
    const kib = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'latin1'))?.[1];
    return kib === undefined ? undefined : Number(kib) * 1024;
  } catch {
    return undefined;
  }
};
const kernelKeepsPeak = highWaterMark() !== undefined;
let peakRss = 0;
const sample = () =>
  (peakRss = Math.max(peakRss, (kernelKeepsPeak && highWaterMark()) || process.memoryUsage.rss()));
let sampler;

let handler;
try {
  ({ handler } = await import(pathToFileURL(bundle).href));
  if (typeof handler !== 'function') throw new Error(`${bundle} exports no handler function`);
  sample();
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
  // After everything the invocation printed: the parent logs it all before the answer's REPORT.
  if (END_MARK) {
    process.stdout.write(`${END_MARK}${id}\n`);
    process.stderr.write(`${END_MARK}${id}\n`);
  }
  // The sandbox's peak so far, which is what Lambda's "Max Memory Used" reports.
  send({ ...message, durationMs, maxRssKiB: peakRss / 1024 });
});
