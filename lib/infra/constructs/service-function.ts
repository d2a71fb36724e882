/**
 * One function of the registry as deployed: bundled from the one build definition, with its own
 * log group and a role that may write only there; the stack adds the role's grants, from the
 * registry (lib/definitions/policies.ts).
 */
import {
  Annotations,
  AssetStaging,
  CfnResource,
  Duration,
  RemovalPolicy,
  Stack,
  Validations,
} from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IVpc, SubnetSelection } from 'aws-cdk-lib/aws-ec2';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import {
  ApplicationLogLevel,
  Architecture,
  LoggingFormat,
  Runtime,
  SystemLogLevel,
  Tracing,
} from 'aws-cdk-lib/aws-lambda';
import {
  LogLevel,
  NodejsFunction,
  OutputFormat,
  SourceMapMode,
  type BundlingOptions,
} from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { join, posix } from 'node:path';
import { ESBUILD_OPTIONS, FUNCTION_NODE_OPTIONS, PROJECT_ROOT } from '../../definitions/bundling';
import { TABLES_BY_KEY, type FunctionDefinition, type TableKey } from '../../definitions/functions';
import { canShipStartWrapper, START_WRAPPER } from '../../definitions/lambda-node';
import { NETWORK_INTERFACE_ACTIONS } from '../../definitions/policies';

/** Settings of one deployed function. */
export interface ServiceFunctionProps {
  /** The registry name: the metrics' service dimension and the role's description. */
  readonly name: string;
  /** The registry entry: entry point, memory, timeout and the tables it is given. */
  readonly definition: FunctionDefinition;
  /** The deployed tables, by registry key; the function gets the ones its definition names. */
  readonly tables: Readonly<Partial<Record<TableKey, ITable>>>;
  /**
   * Variables added to the function's environment (its tables' names and its service name are
   * always set).
   * @default - none
   */
  readonly environment?: Readonly<Record<string, string>>;
  /**
   * Concurrent executions reserved for the function, which are also its ceiling.
   * @default - nothing reserved; the function shares the account's unreserved concurrency
   */
  readonly reservedConcurrency?: number;
  /**
   * How long the function's log group keeps its events.
   * @default RetentionDays.ONE_MONTH
   */
  readonly logRetention?: RetentionDays;
  /**
   * What becomes of the log group when the stack is deleted.
   * @default RemovalPolicy.DESTROY - the logs go with the function that wrote them
   */
  readonly logRemovalPolicy?: RemovalPolicy;
  /**
   * The application log level. TRACE, DEBUG or INFO: Lambda files the EMF metric lines, which
   * have no level, as INFO, so a higher level would drop the metrics.
   * @default ApplicationLogLevel.INFO
   */
  readonly applicationLogLevel?: ApplicationLogLevel;
  /**
   * X-Ray active tracing by the Lambda runtime (no tracing code in the bundle).
   * @default false - no traces, no X-Ray permissions
   */
  readonly tracing?: boolean;
  /**
   * A VPC to run in, with the subnets to use: the function's connections then leave through
   * that VPC's routes (its NAT gateways' addresses).
   * @default - no VPC: Lambda's own network, whose source addresses change
   */
  readonly network?: { readonly vpc: IVpc; readonly subnets: SubnetSelection };
  /**
   * The processor architecture (the bundle is the same JavaScript on either).
   * @default Architecture.ARM_64
   */
  readonly architecture?: Architecture;
}

/** Log levels at which Lambda keeps the EMF metric lines (it files them as INFO). */
export const METRIC_LOG_LEVELS: readonly ApplicationLogLevel[] = [
  ApplicationLogLevel.TRACE,
  ApplicationLogLevel.DEBUG,
  ApplicationLogLevel.INFO,
];

/**
 * `lib/definitions/bundling.ts`'s esbuild options in `NodejsFunction`'s terms: the one place they are
 * mapped, so a deployed bundle equals the one `npm start` and the tests build.
 */
export function nodejsBundling(startWrapper = true): BundlingOptions {
  return {
    format: OutputFormat.ESM,
    target: ESBUILD_OPTIONS.target,
    minify: ESBUILD_OPTIONS.minify,
    keepNames: ESBUILD_OPTIONS.keepNames,
    // esbuild's `linked` (a `.map` file and the comment naming it) is CDK's DEFAULT mode.
    sourceMap: true,
    sourceMapMode: { linked: SourceMapMode.DEFAULT }[ESBUILD_OPTIONS.sourcemap],
    sourcesContent: ESBUILD_OPTIONS.sourcesContent,
    mainFields: [...ESBUILD_OPTIONS.mainFields],
    externalModules: [...ESBUILD_OPTIONS.external],
    bundleAwsSDK: true,
    banner: ESBUILD_OPTIONS.banner.js,
    esbuildArgs: {
      '--legal-comments': ESBUILD_OPTIONS.legalComments,
      '--alias': Object.entries(ESBUILD_OPTIONS.alias).map(([from, to]) => `${from}=${to}`),
      '--log-override': Object.entries(ESBUILD_OPTIONS.logOverride).map(
        ([id, level]) => `${id}=${level}`,
      ),
    },
    // As lib/definitions/build.ts: only warnings and errors (the bundle is the same either way).
    logLevel: LogLevel.WARNING,
    // Without a local esbuild CDK bundles in Docker, from `/` unless told: the aliases' paths are
    // relative to the project root, which the container mounts here.
    workingDirectory: AssetStaging.BUNDLING_INPUT_DIR,
    // The start wrapper beside each bundle, executable (the function's AWS_LAMBDA_EXEC_WRAPPER).
    ...(startWrapper && {
      commandHooks: {
        beforeBundling: () => [],
        beforeInstall: () => [],
        afterBundling: (inputDir: string, outputDir: string) => {
          const target = posix.join(outputDir, START_WRAPPER.file);
          // `test -x`: a file system that ignores modes (a Windows mount) fails the synth here
          // rather than shipping a wrapper Lambda cannot run.
          return [
            `cp "${posix.join(inputDir, START_WRAPPER.source)}" "${target}"`,
            `chmod 755 "${target}"`,
            `test -x "${target}"`,
          ];
        },
      },
    }),
  };
}

/** A registry function with its log group (`Logs`), role (`Role`) and function (`Function`). */
export class ServiceFunction extends Construct {
  readonly function: NodejsFunction;
  readonly logGroup: LogGroup;
  readonly role: Role;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    super(scope, id);
    const { name, definition, reservedConcurrency } = props;
    if (
      reservedConcurrency !== undefined &&
      !(Number.isInteger(reservedConcurrency) && reservedConcurrency >= 1)
    ) {
      throw new Error(
        `reservedConcurrency of ${name} must be a positive integer, got ${reservedConcurrency}`,
      );
    }
    const logLevel = props.applicationLogLevel ?? ApplicationLogLevel.INFO;
    if (!METRIC_LOG_LEVELS.includes(logLevel)) {
      throw new Error(
        `applicationLogLevel must be TRACE, DEBUG or INFO (a higher level drops the EMF metrics), got ${logLevel}`,
      );
    }
    const tables = Object.keys(definition.tables).map((key) => {
      const table = props.tables[key as TableKey];
      if (!table) throw new Error(`${name} uses the ${key} table, which tables does not hold`);
      return { table, definition: TABLES_BY_KEY[key as TableKey] };
    });

    this.logGroup = new LogGroup(this, 'Logs', {
      retention: props.logRetention ?? RetentionDays.ONE_MONTH,
      removalPolicy: props.logRemovalPolicy ?? RemovalPolicy.DESTROY,
    });
    this.role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Plant Store ${name} function`,
    });
    this.logGroup.grantWrite(this.role);
    const startWrapper = canShipStartWrapper();
    if (!startWrapper) {
      Annotations.of(this).addWarningV2(
        '@plant-store/start-wrapper',
        `${name} starts with Lambda's own command line (--expose-gc, ~12 ms more per cold start, and V8's 1 MB young generation): synthesized on Windows, its start wrapper could not be made executable in the asset`,
      );
    }
    // CDK notes `Bundling asset <path>...` on stderr for each function it bundles (its asset
    // staging writes it, whatever the CLI's --quiet): the note is left as CDK writes it.
    this.function = new NodejsFunction(this, 'Function', {
      entry: join(PROJECT_ROOT, definition.entry),
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: join(PROJECT_ROOT, 'package-lock.json'),
      handler: 'handler',
      runtime: Runtime.NODEJS_24_X,
      architecture: props.architecture ?? Architecture.ARM_64,
      memorySize: definition.memorySize,
      timeout: Duration.seconds(definition.timeoutSeconds),
      reservedConcurrentExecutions: reservedConcurrency,
      role: this.role,
      logGroup: this.logGroup,
      loggingFormat: LoggingFormat.JSON,
      applicationLogLevelV2: logLevel,
      systemLogLevelV2: SystemLogLevel.INFO,
      tracing: props.tracing ? Tracing.ACTIVE : undefined,
      vpc: props.network?.vpc,
      vpcSubnets: props.network?.subnets,
      environment: {
        ...Object.fromEntries(
          tables.map(({ table, definition }) => [definition.environmentVariable, table.tableName]),
        ),
        // The service dimension of the metrics: the registry name the dashboard reads.
        POWERTOOLS_SERVICE_NAME: name,
        // Lambda starts Node through the bundle's wrapper: no `--expose-gc`, an 8 MB young generation.
        ...(startWrapper && { AWS_LAMBDA_EXEC_WRAPPER: START_WRAPPER.path }),
        // Node's options for the functions (lib/definitions/bundling.ts), if any.
        ...(FUNCTION_NODE_OPTIONS.length > 0 && {
          NODE_OPTIONS: FUNCTION_NODE_OPTIONS.join(' '),
        }),
        ...props.environment,
      },
      bundling: nodejsBundling(startWrapper),
    });
    // SAM names a function by the id before `Resource` in its path (here `Function`, the same
    // for all): this metadata gives it the construct's own id (`sam local invoke CreatePlant`).
    (this.function.node.defaultChild as CfnResource).addMetadata('SamResourceId', id);
    this.dependOnPolicyOnly();

    if (props.network) this.allowNetworkInterfaces();
    if (props.tracing) {
      // X-Ray's PutTraceSegments and PutTelemetryRecords have no resource to name: `*` is the
      // only form IAM accepts, and Lambda's own tracing grants exactly these two actions.
      Validations.of(this.role).acknowledge({
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason: 'X-Ray PutTraceSegments and PutTelemetryRecords support only Resource *',
      });
    }
  }

  /**
   * What Lambda needs to attach the function to its subnets (CDK adds the managed
   * AWSLambdaVPCAccessExecutionRole only to roles it creates; that policy also allows logging
   * anywhere, which this role may not). The policy is in place before the function, by
   * `dependOnPolicyOnly`.
   */
  private allowNetworkInterfaces(): void {
    this.role.addToPolicy(
      new PolicyStatement({
        actions: [...NETWORK_INTERFACE_ACTIONS],
        resources: ['*'],
      }),
    );
    Validations.of(this.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'Lambda manages the network interfaces of a function in a VPC with these actions, which Lambda documents on Resource * (ec2:DescribeNetworkInterfaces supports nothing else)',
    });
  }

  /**
   * CDK makes a function depend on its role and the role's policy; the role is already a
   * `GetAtt` of the function, so CloudFormation validation reports the first as redundant
   * (W3005). Only the policy dependency is kept: the function must not start before it may read
   * its table.
   */
  private dependOnPolicyOnly(after: readonly ServiceFunction[] = []): void {
    const policy = this.role.node.tryFindChild('DefaultPolicy')?.node.defaultChild as
      CfnResource | undefined;
    const cfnFunction = this.function.node.defaultChild as CfnResource;
    const ids = [policy, ...after.map((other) => other.function.node.defaultChild as CfnResource)]
      .filter((resource) => resource !== undefined)
      .map((resource) => Stack.of(this).getLogicalId(resource));
    cfnFunction.addOverride('DependsOn', ids.length > 0 ? ids : undefined);
  }

  /** Updated (and created) only after `others` (the registry's `deployAfter`). */
  deployAfter(others: readonly ServiceFunction[]): void {
    this.dependOnPolicyOnly(others);
  }
}
