// One Lambda function, isolated in its own process with its own environment, as Lambda runs
// it: imports the built bundle once (cold start), then answers invocations from the parent.
import { pathToFileURL } from 'node:url';

const bundle = process.env.PLANT_STORE_BUNDLE;
let handler;
try {
  ({ handler } = await import(pathToFileURL(bundle).href));
  if (typeof handler !== 'function') throw new Error(`${bundle} exports no handler function`);
  process.send({ type: 'ready' });
} catch (error) {
  console.error(`init failed: ${error?.stack ?? error}`);
  process.send({ type: 'init-error', message: String(error?.message ?? error) });
  process.exit(1);
}

// Ctrl-C signals the whole process group: the parent decides when a function stops, by
// disconnecting once its requests are answered (or by dying, even killed outright).
process.on('SIGINT', () => undefined);
process.on('SIGTERM', () => undefined);
process.on('disconnect', () => process.exit(0));

process.on('message', async ({ id, event }) => {
  try {
    const result = await handler(event, { awsRequestId: event?.requestContext?.requestId });
    process.send({ type: 'result', id, result: result === undefined ? null : result });
  } catch (error) {
    console.error(`invocation failed: ${error?.stack ?? error}`);
    process.send({ type: 'error', id, message: String(error?.message ?? error) });
  }
});
