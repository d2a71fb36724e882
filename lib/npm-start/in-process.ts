/**
 * The emulator's parts the lab starts in its own process to measure them (an engine, the whole
 * runtime, the functions' local environment, the local SQS with its injected faults), and the
 * free ports it gives what it starts.
 */
export { freePort } from '../local/process/free-port';
export { LOCAL_QUEUE_NAMES, localQueueUrl } from '../local/names';
export { createTables, LOCAL_REGION, startEngine } from '../local/dynamodb/engine';
export { startLocal } from '../local/runtime';
export { LocalQueue } from '../local/sqs/queue';
export { serveSqs, SQS_TARGET_PREFIX } from '../local/sqs/api';
export { localQueueArn, localWebhookEnvironment } from '../local/webhooks';
