/**
 * Where the local account's queues and secrets key are, and how a command in another terminal
 * reaches the engine: what `lib/npm-start/find.ts` hands to the operator's commands. Kept apart
 * from the emulator (the engine, IAM, the queues) so that a command that only talks to a running
 * `npm start` does not load it: each command starts in a fraction of the time.
 */
import { SUBSCRIPTIONS_TABLE } from '../../lambda/aws/tables';
import { LOCAL_ACCOUNT, LOCAL_REGION, type Credentials } from './iam/identities';

/** The local queues' names, by the key the registry uses. */
export const LOCAL_QUEUE_NAMES = {
  deliveries: 'plant-store-deliveries',
  deadLetters: 'plant-store-dead-letters',
  streamFailures: 'plant-store-stream-failures',
} as const;

/** The alias of the secrets key, locally as deployed: named after the subscriptions table. */
export const LOCAL_SECRETS_KEY_ALIAS = `alias/${SUBSCRIPTIONS_TABLE.localName}`;

/** The local queue URL of `name` on `endpoint`. */
export function localQueueUrl(endpoint: string, name: string): string {
  return `${endpoint}/${LOCAL_ACCOUNT}/${name}`;
}

/**
 * The SDK settings with which a CLI reaches the local engine (its tables, queues and key) at
 * `endpoint`, signing as the operator: one attempt, since an engine that is not there will not
 * come back.
 */
export function localCliClientConfig(endpoint: string, credentials: Credentials) {
  return { endpoint, region: LOCAL_REGION, credentials, maxAttempts: 1 };
}

/**
 * `PLANT_STORE_WEBHOOK_RETRY_SCALE`, what multiplies the webhook retry delays locally: a number
 * above 0, at most 1 (unset or empty: 1).
 */
export function retryScaleFromEnvironment(env: NodeJS.ProcessEnv): number {
  const raw = env.PLANT_STORE_WEBHOOK_RETRY_SCALE;
  if (raw === undefined || raw === '') return 1;
  const scale = Number(raw);
  if (!/^[\d.e+-]+$/i.test(raw) || !(scale > 0 && scale <= 1)) {
    throw new Error(
      `PLANT_STORE_WEBHOOK_RETRY_SCALE must be a number above 0 and at most 1, not ${raw}`,
    );
  }
  return scale;
}
