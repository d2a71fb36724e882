/**
 * The emulator's parts the lab starts in its own process to measure them (an engine, the whole
 * runtime, the functions' local environment), and the free ports it gives what it starts.
 */
export { freePort } from '../local/process/free-port';
export {
  createTables,
  LOCAL_CREDENTIALS,
  LOCAL_REGION,
  startEngine,
} from '../local/dynamodb/engine';
export { startLocal } from '../local/runtime';
export { localWebhookEnvironment } from '../local/webhooks';
