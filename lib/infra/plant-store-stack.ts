/**
 * Plant Store in one stack: the tables, one function per registry entry, the HTTP API in front
 * of them and the monitoring, each a construct with its own props; this file only wires them.
 */
import {
  DefaultStackSynthesizer,
  Aws,
  CfnOutput,
  Duration,
  Fn,
  Stack,
  type RemovalPolicy,
  type StackProps,
} from 'aws-cdk-lib';
import type { Operation } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyDocument, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { ApplicationLogLevel, Architecture } from 'aws-cdk-lib/aws-lambda';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { WEBHOOK_ENVIRONMENT } from '../../lambda/webhook/config';
import { API } from '../definitions/api';
import { VERSION } from '../definitions/version';
import { ServiceHttpApi } from './constructs/http-api';
import { Monitoring } from './constructs/monitoring';
import { ServiceFunction } from './constructs/service-function';
import { StaticEgress } from './constructs/static-egress';
import { Tables } from './constructs/tables';
import type { TableDefinition } from '../../lambda/aws/tables';
import { Webhooks } from './constructs/webhooks';
import {
  FUNCTIONS,
  FUNCTION_NAMES,
  TABLES_BY_KEY,
  operationsOn,
  type FunctionName,
  type TableKey,
} from '../definitions/functions';
import { functionStatements, keyPolicy, type ResourceArns } from '../definitions/policies';
import { bootstrapRoleArn } from './bootstrap';

/** Settings of a Plant Store deployment. */
export interface PlantStoreStackProps extends StackProps {
  /**
   * How long the gateway caches an authorizer decision per `Authorization` value; a revoked
   * token keeps working at most this long. 0 turns caching off.
   * @default Duration.seconds(300)
   */
  readonly authCacheTtl?: Duration;
  /**
   * Origins allowed by CORS.
   * @default ['*'] - any origin; requests still need a bearer token
   */
  readonly corsAllowOrigins?: string[];
  /**
   * Steady-state requests per second the `$default` stage accepts before answering 429.
   * @default STAGE_THROTTLE.rateLimit (50)
   */
  readonly throttlingRateLimit?: number;
  /**
   * Requests the `$default` stage accepts in a burst.
   * @default STAGE_THROTTLE.burstLimit (100)
   */
  readonly throttlingBurstLimit?: number;
  /**
   * Concurrent executions reserved for each named function, which are also its ceiling: a flood
   * of one operation can then neither run up more than that many sandboxes nor starve the other
   * functions of the account. Off by default because a new account cannot reserve any: its
   * regional limit may be as low as 10 and Lambda keeps at least 100 unreserved, so the
   * deployment would fail there (docs/security.md).
   * @default - nothing reserved; the functions share the account's unreserved concurrency
   */
  readonly reservedConcurrency?: Readonly<Partial<Record<FunctionName, number>>>;
  /**
   * How long the function log groups keep their events.
   * @default RetentionDays.ONE_MONTH
   */
  readonly logRetention?: RetentionDays;
  /**
   * What becomes of the function log groups when the stack is deleted.
   * @default RemovalPolicy.DESTROY - the logs go with the functions that wrote them
   */
  readonly logRemovalPolicy?: RemovalPolicy;
  /**
   * How long the API access log group keeps its events (one line per request, with the
   * `tokenId`: the audit trail of who called what).
   * @default RetentionDays.ONE_YEAR
   */
  readonly accessLogRetention?: RetentionDays;
  /**
   * What becomes of the API access log group when the stack is deleted.
   * @default RemovalPolicy.RETAIN - the audit trail outlives the stack, and its retention still
   * expires the events
   */
  readonly accessLogRemovalPolicy?: RemovalPolicy;
  /**
   * What becomes of the alarm topic's KMS key when the stack is deleted.
   * @default RemovalPolicy.RETAIN
   */
  readonly alarmKeyRemovalPolicy?: RemovalPolicy;
  /**
   * Address that alarm notifications are emailed to, through an SNS topic.
   * @default - no topic: alarms change state in CloudWatch and notify nobody
   */
  readonly alarmEmail?: string;
  /**
   * A DynamoDB endpoint for the functions, for `sam local` against `npm run db` only
   * (`npm run synth -- -c dynamoDbEndpoint=http://127.0.0.1:8000`); the webhook functions also
   * get it as their SQS endpoint, and loopback receivers allowed.
   * @default - the region's DynamoDB endpoint; no variable is set
   */
  readonly dynamoDbEndpoint?: string;
  /**
   * The functions' processor architecture. Only `sam local` on an x86-64 machine asks for
   * another (`-c lambdaArch=host`): Docker Engine runs arm64 images there only with QEMU.
   * @default Architecture.ARM_64
   */
  readonly architecture?: Architecture;
  /**
   * The functions' application log level (Lambda's JSON log format filters by it). TRACE, DEBUG
   * or INFO: Lambda files the EMF metric lines, which have no level, as INFO, so a higher level
   * would drop the metrics.
   * @default ApplicationLogLevel.INFO
   */
  readonly applicationLogLevel?: ApplicationLogLevel;
  /**
   * X-Ray active tracing of the functions by the Lambda runtime (no tracing code in the bundles).
   * @default false - no traces, no X-Ray permissions
   */
  readonly tracing?: boolean;
  /**
   * Fixed source addresses for the webhook (`-c webhookStaticIps=true`): the functions that
   * reach outside AWS run in a VPC whose NAT gateways send from Elastic IPs, listed by the
   * `WebhookSourceAddresses` output for receivers to allow-list. About $73 a month plus
   * $0.045 per GB (docs/guides/receiving-webhooks.md).
   * @default false - no VPC, no NAT: the deliverer's source address is Lambda's and changes
   */
  readonly webhookStaticIps?: boolean;
}

/**
 * The tables' CloudFormation logical ids from when they stood at the stack's root: a table whose
 * id changes is replaced and loses its data, so these never change.
 */
const TABLE_LOGICAL_IDS: Readonly<Partial<Record<TableKey, string>>> = {
  plants: 'PlantsTable0ED39346',
  tokens: 'TokensTable6C9B5BC6',
};

/** The stack's description unless props give one: every operation, from the API definition. */
export const STACK_DESCRIPTION = `Plant Store: ${API.routes
  .map((route) => `${route.method} ${route.path}`)
  .join(', ')} on an HTTP API with a bearer-token Lambda authorizer, Lambda and DynamoDB`;

/** The deployed service. */
export class PlantStoreStack extends Stack {
  /** The API's base URL. */
  readonly apiUrl: string;
  readonly tables: Tables<TableKey>;
  readonly functions: Readonly<Record<FunctionName, ServiceFunction>>;

  constructor(scope: Construct, id: string, props: PlantStoreStackProps = {}) {
    super(scope, id, { description: STACK_DESCRIPTION, ...props });
    this.tables = new Tables(this, 'Tables', {
      definitions: TABLES_BY_KEY,
      logicalIds: TABLE_LOGICAL_IDS,
    });
    const tables = this.tables.byKey;
    const egress = props.webhookStaticIps ? new StaticEgress(this, 'WebhookEgress') : undefined;

    this.functions = Object.fromEntries(
      FUNCTION_NAMES.map((name) => [
        name,
        new ServiceFunction(this, FUNCTIONS[name].id, {
          name,
          definition: FUNCTIONS[name],
          tables,
          environment: samLocalEnvironment(name, props.dynamoDbEndpoint),
          reservedConcurrency: props.reservedConcurrency?.[name],
          logRetention: props.logRetention,
          logRemovalPolicy: props.logRemovalPolicy,
          applicationLogLevel: props.applicationLogLevel,
          tracing: props.tracing,
          network:
            egress && FUNCTIONS[name].reachesOutside
              ? { vpc: egress.vpc, subnets: egress.subnets }
              : undefined,
          architecture: props.architecture,
        }),
      ]),
    ) as Record<FunctionName, ServiceFunction>;
    for (const name of FUNCTION_NAMES) {
      const after = FUNCTIONS[name].deployAfter ?? [];
      const unknown = after.filter(
        (other) => !(FUNCTION_NAMES as readonly string[]).includes(other),
      );
      if (unknown.length > 0) throw new Error(`${name}: deployAfter names no function: ${unknown}`);
      if (after.length > 0) {
        this.functions[name].deployAfter(
          after.map((other) => this.functions[other as FunctionName]),
        );
      }
    }
    const functions = Object.fromEntries(
      FUNCTION_NAMES.map((name) => [name, this.functions[name].function]),
    ) as Record<FunctionName, ServiceFunction['function']>;

    // Id `Default` is left out of logical ids: the API, its routes, authorizer, stage and access
    // log keep the ids they had at the stack's root. A new API would change the URL, and a new
    // route or `$default` stage is created before the old one goes, which API Gateway refuses
    // (same route key, same stage name).
    const api = new ServiceHttpApi(this, 'Default', {
      definition: API,
      functions,
      authCacheTtl: props.authCacheTtl,
      corsAllowOrigins: props.corsAllowOrigins,
      throttlingRateLimit: props.throttlingRateLimit,
      throttlingBurstLimit: props.throttlingBurstLimit,
      accessLogRetention: props.accessLogRetention,
      accessLogRemovalPolicy: props.accessLogRemovalPolicy,
    });
    this.apiUrl = api.url;

    // Every grant from the registry: each role's policy, and the secrets key's.
    const arns = (queues?: Webhooks): ResourceArns => ({
      table: (key) => tables[key].tableArn,
      queue: (key) => {
        if (!queues) throw new Error(`the ${key} queue is made with the webhook`);
        return {
          deliveries: queues.deliveryQueue,
          deadLetters: queues.deadLetterQueue,
          streamFailures: queues.streamFailureQueue,
        }[key].queueArn;
      },
      role: (name) => this.functions[name].role.roleArn,
      accountRoot: `arn:${Aws.PARTITION}:iam::${Aws.ACCOUNT_ID}:root`,
      // Only a deployment of this stack may rewrite the key policy (docs/security.md).
      deployer: bootstrapRoleArn(
        {
          qualifier:
            this.synthesizer.bootstrapQualifier ?? DefaultStackSynthesizer.DEFAULT_QUALIFIER,
        },
        'cfn-exec',
      ),
    });
    const webhooks = new Webhooks(this, 'Webhooks', {
      plantsTable: tables.plants,
      subscriptionsTable: tables.subscriptions,
      fanOut: functions['fan-out'],
      deliver: functions.deliver,
      secretsKeyPolicy: PolicyDocument.fromJson(keyPolicy('secrets', arns())),
    });
    for (const name of FUNCTION_NAMES) {
      for (const statement of functionStatements(name, arns(webhooks))) {
        this.functions[name].role.addToPolicy(PolicyStatement.fromJson(statement));
      }
    }

    const definitions: Readonly<Record<TableKey, TableDefinition>> = TABLES_BY_KEY;
    new Monitoring(this, 'Monitoring', {
      api: api.api,
      functions,
      authorizer: API.authorizer.function,
      tables: Object.fromEntries(
        (Object.keys(tables) as TableKey[]).map((key) => [
          key,
          {
            table: tables[key],
            operations: operationsOn(key) as Operation[],
            indexes: (definitions[key].indexes ?? []).map((index) => index.name),
          },
        ]),
      ),
      alarmEmail: props.alarmEmail,
      alarmKeyRemovalPolicy: props.alarmKeyRemovalPolicy,
      extraWidgets: webhooks.widgets,
      extraAlarms: webhooks.alarmMetrics,
    });

    new CfnOutput(this, 'Version', {
      value: VERSION,
      description:
        'The Plant Store release deployed (package.json; CHANGELOG.md says what it changed)',
    });
    new CfnOutput(this, 'ApiUrl', {
      value: this.apiUrl,
      description: `Base URL of the API: ${API.routes.map((route) => `${route.method} <ApiUrl>${route.path.slice(1)}`).join(', ')}`,
    });
    new CfnOutput(this, 'PlantsTableName', {
      value: tables.plants.tableName,
      description: 'The plants table (read and written by create, get, list and delete)',
    });
    new CfnOutput(this, 'TokensTableName', {
      value: tables.tokens.tableName,
      description: 'npm run token -- create --aws --table <TokensTableName>',
    });
    new CfnOutput(this, 'SubscriptionsTableName', {
      value: tables.subscriptions.tableName,
      description:
        'npm run webhook -- add --aws --table <SubscriptionsTableName> --url <https URL>',
    });
    new CfnOutput(this, 'DeliveryQueueUrl', {
      value: webhooks.deliveryQueue.queueUrl,
      description:
        'npm run webhook -- replay --since <ISO time> --aws --table <PlantsTableName> --subscriptions <SubscriptionsTableName> --queue <DeliveryQueueUrl>',
    });
    new CfnOutput(this, 'DeadLetterQueueUrl', {
      value: webhooks.deadLetterQueue.queueUrl,
      description: 'npm run webhook -- dead-letters --aws --queue <DeadLetterQueueUrl> [--redrive]',
    });
    if (egress) {
      new CfnOutput(this, 'WebhookSourceAddresses', {
        value: Fn.join(',', egress.addresses),
        description:
          'Every webhook request comes from one of these addresses: receivers allow-list them',
      });
    }
  }
}

/**
 * What a sam-local synth adds to a function's environment: the SDK reads the endpoints itself;
 * `npm run db` serves the webhook queues and KMS on the engine's port, and there the receivers are on
 * loopback; the retry scale is 1 unless sam-env.json says otherwise. A normal synth adds nothing.
 */
function samLocalEnvironment(
  name: FunctionName,
  endpoint: string | undefined,
): Record<string, string> | undefined {
  if (!endpoint) return undefined;
  return {
    AWS_ENDPOINT_URL_DYNAMODB: endpoint,
    // npm run db serves KMS on the same port, for a function given a key (sam-env.json names it).
    ...(FUNCTIONS[name].keys && { AWS_ENDPOINT_URL_KMS: endpoint }),
    ...(FUNCTIONS[name].trigger && {
      AWS_ENDPOINT_URL_SQS: endpoint,
      [WEBHOOK_ENVIRONMENT.allowLoopback]: 'true',
      // Declared so that sam-env.json can set them (SAM overrides only declared variables).
      [WEBHOOK_ENVIRONMENT.retryScale]: '1',
      [WEBHOOK_ENVIRONMENT.subscribersFreshSeconds]: '0',
    }),
  };
}
