/** Plant Store in one stack: the HTTP API, its authorizer and function, the tables and alarms. */
import {
  CfnOutput,
  CfnResource,
  Duration,
  RemovalPolicy,
  Stack,
  Validations,
  type StackProps,
} from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  CorsHttpMethod,
  HttpApi,
  HttpMethod,
  HttpStage,
  LogGroupLogDestination,
} from 'aws-cdk-lib/aws-apigatewayv2';
import {
  HttpLambdaAuthorizer,
  HttpLambdaResponseType,
} from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { AttributeType, BillingMode, StreamViewType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import {
  ApplicationLogLevel,
  Architecture,
  LoggingFormat,
  Runtime,
  SystemLogLevel,
  Tracing,
} from 'aws-cdk-lib/aws-lambda';
import { LogLevel, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { join } from 'node:path';
import {
  PLANTS_TABLE,
  SUBSCRIPTIONS_TABLE,
  TOKENS_TABLE,
  type TableDefinition,
} from '../lambda/shared/tables';
import { WEBHOOK_ENVIRONMENT } from '../lambda/shared/webhook-config';
import { API, STAGE_THROTTLE } from './api';
import { ESBUILD_OPTIONS, PROJECT_ROOT } from './bundling';
import { Monitoring } from './constructs/monitoring';
import { Webhooks } from './constructs/webhooks';
import {
  FUNCTIONS,
  FUNCTION_NAMES,
  tableEnvironment,
  type FunctionName,
  type TableKey,
} from './functions';

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
   * @default 50
   */
  readonly throttlingRateLimit?: number;
  /**
   * Requests the `$default` stage accepts in a burst.
   * @default 100
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
   * (`npm run synth -- -c dynamoDbEndpoint=http://host.docker.internal:8000`); the webhook
   * functions also get it as their SQS endpoint, and loopback receivers allowed.
   * @default - the region's DynamoDB endpoint; no variable is set
   */
  readonly dynamoDbEndpoint?: string;
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
}

/** A log group's retention and removal policy. */
interface LogSettings {
  readonly retention: RetentionDays;
  readonly removalPolicy: RemovalPolicy;
}

/**
 * CDK makes a function depend on its role and the role's policy; the role is already a `GetAtt`
 * of the function, so CloudFormation validation reports the first as redundant (W3005). Only
 * the policy dependency is kept: the function must not start before it may read its table.
 */
function dependOnPolicyOnly(fn: NodejsFunction): void {
  const policy = fn.role!.node.tryFindChild('DefaultPolicy')?.node.defaultChild as
    CfnResource | undefined;
  const cfnFunction = fn.node.defaultChild as CfnResource;
  cfnFunction.addOverride('DependsOn', policy ? [Stack.of(fn).getLogicalId(policy)] : undefined);
}

/** Log levels at which Lambda keeps the EMF metric lines (it files them as INFO). */
const METRIC_LOG_LEVELS: readonly ApplicationLogLevel[] = [
  ApplicationLogLevel.TRACE,
  ApplicationLogLevel.DEBUG,
  ApplicationLogLevel.INFO,
];

/** The stack's description unless props give one: every operation, from the API definition. */
export const STACK_DESCRIPTION = `Plant Store: ${API.routes
  .map((route) => `${route.method} ${route.path}`)
  .join(', ')} on an HTTP API with a bearer-token Lambda authorizer, Lambda and DynamoDB`;

/** The deployed service. */
export class PlantStoreStack extends Stack {
  /** The API's base URL. */
  readonly apiUrl: string;
  readonly plantsTable: Table;
  readonly tokensTable: Table;
  private readonly logLevel: ApplicationLogLevel;
  private readonly tracing: boolean;

  constructor(scope: Construct, id: string, props: PlantStoreStackProps = {}) {
    super(scope, id, { description: STACK_DESCRIPTION, ...props });
    this.reservedConcurrency = props.reservedConcurrency ?? {};
    const authCacheTtl =
      props.authCacheTtl ?? Duration.seconds(API.authorizer.defaultCacheTtlSeconds);
    if (authCacheTtl.toSeconds() > 3600) {
      throw new Error(`authCacheTtl must be at most 3600 seconds, got ${authCacheTtl.toSeconds()}`);
    }
    const functionLogs: LogSettings = {
      retention: props.logRetention ?? RetentionDays.ONE_MONTH,
      removalPolicy: props.logRemovalPolicy ?? RemovalPolicy.DESTROY,
    };
    this.logLevel = props.applicationLogLevel ?? ApplicationLogLevel.INFO;
    if (!METRIC_LOG_LEVELS.includes(this.logLevel)) {
      throw new Error(
        `applicationLogLevel must be TRACE, DEBUG or INFO (a higher level drops the EMF metrics), got ${this.logLevel}`,
      );
    }
    this.tracing = props.tracing ?? false;
    // The SDK reads these variables itself; only a sam-local synth sets them. `npm run db` serves
    // the webhook queues on the engine's port, and there the receivers are on loopback.
    const endpoint = (name: FunctionName): Record<string, string> =>
      props.dynamoDbEndpoint
        ? {
            AWS_ENDPOINT_URL_DYNAMODB: props.dynamoDbEndpoint,
            ...(FUNCTIONS[name].trigger && {
              AWS_ENDPOINT_URL_SQS: props.dynamoDbEndpoint,
              [WEBHOOK_ENVIRONMENT.allowLoopback]: 'true',
            }),
          }
        : {};

    this.plantsTable = this.table('PlantsTable', PLANTS_TABLE);
    this.tokensTable = this.table('TokensTable', TOKENS_TABLE);

    const tables: Record<TableKey, Table> = {
      plants: this.plantsTable,
      tokens: this.tokensTable,
      subscriptions: this.table('SubscriptionsTable', SUBSCRIPTIONS_TABLE),
    };
    // One function per registry entry: its tables' names in its environment, and exactly its
    // declared actions on each.
    const functions = Object.fromEntries(
      FUNCTION_NAMES.map((name) => {
        const fn = this.function(name, functionLogs, {
          ...tableEnvironment(name, (key) => tables[key].tableName),
          // The service dimension of the metrics: the registry name the dashboard reads.
          POWERTOOLS_SERVICE_NAME: name,
          ...endpoint(name),
        });
        for (const [key, actions] of Object.entries(FUNCTIONS[name].tables)) {
          tables[key as TableKey].grant(fn, ...actions);
        }
        dependOnPolicyOnly(fn);
        return [name, fn];
      }),
    ) as Record<FunctionName, NodejsFunction>;

    if (this.tracing) {
      // X-Ray's PutTraceSegments and PutTelemetryRecords have no resource to name: `*` is the
      // only form IAM accepts, and Lambda's own tracing grants exactly these two actions.
      for (const fn of Object.values(functions)) {
        Validations.of(fn.role!).acknowledge({
          id: 'AwsSolutions-IAM5[Resource::*]',
          reason: 'X-Ray PutTraceSegments and PutTelemetryRecords support only Resource *',
        });
      }
    }

    const api = new HttpApi(this, 'HttpApi', {
      apiName: 'plant-store',
      description: 'Plant Store',
      createDefaultStage: false,
      corsPreflight: {
        allowOrigins: props.corsAllowOrigins ?? [...API.cors.defaultAllowOrigins],
        allowHeaders: [...API.cors.allowHeaders],
        allowMethods: API.cors.allowMethods.map(
          (m) => CorsHttpMethod[m as keyof typeof CorsHttpMethod],
        ),
        maxAge: Duration.seconds(API.cors.maxAgeSeconds),
      },
    });
    const authorizer = new HttpLambdaAuthorizer(
      'BearerAuthorizer',
      functions[API.authorizer.function],
      {
        responseTypes: [HttpLambdaResponseType.SIMPLE],
        identitySource: [API.authorizer.identitySource],
        resultsCacheTtl: authCacheTtl,
      },
    );
    for (const route of API.routes) {
      api.addRoutes({
        path: route.path,
        methods: [HttpMethod[route.method]],
        integration: new HttpLambdaIntegration(
          `${route.function}-integration`,
          functions[route.function],
        ),
        authorizer: route.authorized ? authorizer : undefined,
      });
    }

    const accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: props.accessLogRetention ?? RetentionDays.ONE_YEAR,
      removalPolicy: props.accessLogRemovalPolicy ?? RemovalPolicy.RETAIN,
    });
    const stage = new HttpStage(this, 'DefaultStage', {
      httpApi: api,
      stageName: '$default',
      autoDeploy: true,
      throttle: {
        rateLimit: props.throttlingRateLimit ?? STAGE_THROTTLE.rateLimit,
        burstLimit: props.throttlingBurstLimit ?? STAGE_THROTTLE.burstLimit,
      },
      accessLogSettings: {
        destination: new LogGroupLogDestination(accessLogs),
        format: AccessLogFormat.custom(
          JSON.stringify({
            requestId: '$context.requestId',
            ip: '$context.identity.sourceIp',
            requestTime: '$context.requestTime',
            routeKey: '$context.routeKey',
            status: '$context.status',
            responseLength: '$context.responseLength',
            latency: '$context.responseLatency',
            integrationStatus: '$context.integrationStatus',
            integrationError: '$context.integrationErrorMessage',
            authorizerError: '$context.authorizer.error',
            tokenId: '$context.authorizer.tokenId',
          }),
        ),
      },
    });
    this.apiUrl = stage.url;

    const webhooks = new Webhooks(this, 'Webhooks', {
      plantsTable: this.plantsTable,
      subscriptionsTable: tables.subscriptions,
      fanOut: functions['fan-out'],
      deliver: functions.deliver,
    });

    new Monitoring(this, 'Monitoring', {
      api,
      functions,
      tables,
      alarmEmail: props.alarmEmail,
      alarmKeyRemovalPolicy: props.alarmKeyRemovalPolicy,
      extraWidgets: webhooks.widgets,
      extraAlarms: webhooks.alarmMetrics,
    });

    new CfnOutput(this, 'ApiUrl', {
      value: this.apiUrl,
      description: `Base URL of the API: ${API.routes.map((route) => `${route.method} <ApiUrl>${route.path.slice(1)}`).join(', ')}`,
    });
    new CfnOutput(this, 'PlantsTableName', {
      value: this.plantsTable.tableName,
      description: 'The plants table (read and written by create, get, list and delete)',
    });
    new CfnOutput(this, 'TokensTableName', {
      value: this.tokensTable.tableName,
      description: 'npm run token -- create --aws --table <TokensTableName>',
    });
    new CfnOutput(this, 'SubscriptionsTableName', {
      value: tables.subscriptions.tableName,
      description:
        'npm run webhook -- add --aws --table <SubscriptionsTableName> --url <https URL>',
    });
    new CfnOutput(this, 'DeadLetterQueueUrl', {
      value: webhooks.deadLetterQueue.queueUrl,
      description: 'npm run webhook -- dead-letters --aws --queue <DeadLetterQueueUrl> [--redrive]',
    });
  }

  /** A table from its shared definition; it keeps its data whatever happens to the stack. */
  private table(id: string, definition: TableDefinition): Table {
    return new Table(this, id, {
      partitionKey: {
        name: definition.partitionKey.name,
        type: definition.partitionKey.type === 'N' ? AttributeType.NUMBER : AttributeType.STRING,
      },
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
      timeToLiveAttribute: definition.timeToLiveAttribute,
      stream: definition.streamViewType && StreamViewType[definition.streamViewType],
    });
  }

  /** `reservedConcurrency` as given, read by `function()`. */
  private readonly reservedConcurrency: Readonly<Partial<Record<FunctionName, number>>>;

  /**
   * A function bundled with the shared esbuild options, with its own log group and a role that
   * may write only there (no managed policy); table access is granted by the caller.
   */
  private function(
    name: FunctionName,
    logs: LogSettings,
    environment: Record<string, string>,
  ): NodejsFunction {
    const definition = FUNCTIONS[name];
    const reservedConcurrency = this.reservedConcurrency[name];
    if (
      reservedConcurrency !== undefined &&
      !(Number.isInteger(reservedConcurrency) && reservedConcurrency >= 1)
    ) {
      throw new Error(
        `reservedConcurrency of ${name} must be a positive integer, got ${reservedConcurrency}`,
      );
    }
    const id = definition.id;
    const logGroup = new LogGroup(this, `${id}Logs`, logs);
    const role = new Role(this, `${id}Role`, {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Plant Store ${name} function`,
    });
    logGroup.grantWrite(role);
    return new NodejsFunction(this, id, {
      entry: join(PROJECT_ROOT, definition.entry),
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: join(PROJECT_ROOT, 'package-lock.json'),
      handler: 'handler',
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      memorySize: definition.memorySize,
      timeout: Duration.seconds(definition.timeoutSeconds),
      reservedConcurrentExecutions: reservedConcurrency,
      role,
      logGroup,
      loggingFormat: LoggingFormat.JSON,
      applicationLogLevelV2: this.logLevel,
      systemLogLevelV2: SystemLogLevel.INFO,
      tracing: this.tracing ? Tracing.ACTIVE : undefined,
      environment,
      bundling: {
        format: OutputFormat.ESM,
        target: ESBUILD_OPTIONS.target,
        minify: ESBUILD_OPTIONS.minify,
        sourceMap: ESBUILD_OPTIONS.sourcemap,
        mainFields: [...ESBUILD_OPTIONS.mainFields],
        externalModules: [...ESBUILD_OPTIONS.external],
        bundleAwsSDK: true,
        banner: ESBUILD_OPTIONS.banner.js,
        esbuildArgs: {
          '--legal-comments': ESBUILD_OPTIONS.legalComments,
          '--alias': Object.entries(ESBUILD_OPTIONS.alias).map(([from, to]) => `${from}=${to}`),
        },
        // As lib/build.ts: only warnings and errors (the bundle is the same either way).
        logLevel: LogLevel.WARNING,
      },
    });
  }
}
