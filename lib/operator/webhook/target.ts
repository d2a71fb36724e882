/**
 * Where the webhook CLI's commands act: npm start's engine and queues (found through
 * lib/npm-start/), or with `--aws` the deployed subscriptions table, plants table, queues and
 * KMS key named by the options; and the tables, secret box and replay dependencies there.
 */
import type { DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { KMSClient } from '@aws-sdk/client-kms';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { makeDocumentClient } from '../../../lambda/aws/dynamodb';
import { PLANTS_TABLE, SUBSCRIPTIONS_TABLE } from '../../../lambda/aws/tables';
import { plantsTable, type PlantsTable } from '../../../lambda/plants/table';
import { sqsDeliveryQueue, type DeliveryQueue } from '../../../lambda/webhook/delivery-queue';
import { ReceiverStates } from '../../../lambda/webhook/receiver-state';
import { kmsSecretBox, type SecretBox } from '../../../lambda/webhook/secrets';
import { SubscriptionsTable } from '../../../lambda/webhook/subscriptions-table';
import { UsageError } from '../../cli/args';
import {
  LOCAL_QUEUE_NAMES,
  LOCAL_SECRETS_KEY_ALIAS,
  localCliClientConfig,
  localEngineTarget,
  localQueueUrl,
  type Credentials,
} from '../../npm-start/find';
import type { ReplayDeps } from './replay';

/** Where a command acts. */
export interface Target {
  readonly local: boolean;
  readonly where: string;
  readonly endpoint?: string;
  readonly region?: string;
  readonly table?: string;
  readonly plantsTable?: string;
  readonly queue?: string;
  /** Locally: what to say when the engine cannot be reached. */
  readonly unreachable?: string;
  /** Locally: the operator's keys (npm start's data directory keeps them). */
  readonly credentials?: Credentials;
}

/** The target the options name: `--aws` and its tables and queue, else npm start's engine. */
export function resolveTarget(
  values: Record<string, string | boolean | undefined>,
  env: NodeJS.ProcessEnv,
): Target {
  const region = values.region as string | undefined;
  if (values.aws) {
    return {
      local: false,
      where: 'AWS',
      region,
      table: values.table as string | undefined,
      plantsTable: values['plants-table'] as string | undefined,
      queue: values.queue as string | undefined,
    };
  }
  if (values.table || values['plants-table'] || values.queue || region)
    throw new UsageError('--table, --plants-table, --queue and --region go with --aws');
  const { endpoint, where, unreachable, credentials } = localEngineTarget(env);
  return { local: true, where, endpoint, unreachable, credentials };
}

/**
 * A document client whose "table not found" names the table it asked for, as `missingTable`
 * reads it (DynamoDB's own message names none, and a command may use two tables).
 */
function documentClient(config: DynamoDBClientConfig): DynamoDBDocumentClient {
  const client = makeDocumentClient(config);
  client.middlewareStack.add(
    (next) => async (args) => {
      try {
        return await next(args);
      } catch (error) {
        const { TableName } = args.input as { TableName?: unknown };
        if ((error as Error)?.name === 'ResourceNotFoundException' && typeof TableName === 'string')
          Object.assign(error as object, { tableName: TableName });
        throw error;
      }
    },
    { step: 'initialize', name: 'nameTheMissingTable' },
  );
  return client;
}

/**
 * One line for a "table not found" from `target`: which of its tables (and, deployed, under which
 * name and option), where, and locally what creates it.
 */
export function missingTable(error: unknown, target: Target | undefined): string {
  const asked = (error as { tableName?: string } | undefined)?.tableName;
  if (!target) return `a table does not exist${asked ? `: ${asked}` : ''}`;
  const plants =
    asked !== undefined && asked === (target.local ? PLANTS_TABLE.localName : target.plantsTable);
  if (target.local) {
    return `the ${plants ? 'plants' : 'subscriptions'} table does not exist in ${target.where} (start the engine with npm run db or npm start; they create it)`;
  }
  const [option, name] = plants
    ? ['--plants-table', target.plantsTable]
    : ['--table', target.table];
  const region = target.region ? ` region ${target.region}` : '';
  return `the ${plants ? 'plants' : 'subscriptions'} table ${asked ?? name} (${option}) does not exist in AWS${region}`;
}

/** The subscriptions table of `target`: a client for it and its name. */
function subscriptionsTableOf(target: Target): [DynamoDBDocumentClient, string] {
  if (target.local) {
    const client = documentClient(localCliClientConfig(target.endpoint!, target.credentials!));
    return [client, SUBSCRIPTIONS_TABLE.localName];
  }
  if (!target.table) throw new UsageError('--aws needs --table <SubscriptionsTableName>');
  return [documentClient(target.region ? { region: target.region } : {}), target.table];
}

/** The subscribers of `target`. */
export function subscriptions(target: Target): SubscriptionsTable {
  return new SubscriptionsTable(...subscriptionsTableOf(target));
}

/** The receivers' state (rate, failures, attempts), kept on the subscribers' items. */
export function receiverStates(target: Target): ReceiverStates {
  return new ReceiverStates(...subscriptionsTableOf(target));
}

/** How `target` seals a subscriber's secret: with KMS, npm start's locally (never plain text). */
export function secretBox(target: Target): SecretBox {
  if (target.local) {
    const config = localCliClientConfig(target.endpoint!, target.credentials!);
    return kmsSecretBox(LOCAL_SECRETS_KEY_ALIAS, new KMSClient(config));
  }
  return kmsSecretBox(
    `alias/${target.table}`,
    new KMSClient(target.region ? { region: target.region } : {}),
  );
}

/** What a replay reads and where it queues: npm start's, or the deployed tables and queue. */
export function replayDependencies(target: Target, command: string): ReplayDeps {
  const subscriptionsTable = subscriptions(target);
  let plants: PlantsTable;
  let queue: DeliveryQueue;
  if (target.local) {
    const config = localCliClientConfig(target.endpoint!, target.credentials!);
    plants = plantsTable(documentClient(config), PLANTS_TABLE.localName);
    const url = localQueueUrl(target.endpoint!, LOCAL_QUEUE_NAMES.deliveries);
    queue = sqsDeliveryQueue(url, new SQSClient(config));
  } else {
    if (!target.plantsTable || !target.queue) {
      throw new UsageError(
        `${command} --aws needs --table <SubscriptionsTableName> --plants-table <PlantsTableName> --queue <DeliveryQueueUrl>`,
      );
    }
    const config = target.region ? { region: target.region } : {};
    plants = plantsTable(documentClient(config), target.plantsTable);
    queue = sqsDeliveryQueue(target.queue, new SQSClient(config));
  }
  return { plants, subscribers: () => subscriptionsTable.list(), queue };
}
