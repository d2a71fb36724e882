/**
 * The HTTP API as deployed from its one definition (`lib/definitions/api.ts`): CORS, the bearer-token
 * authorizer, one route per definition, the `$default` stage with its throttling and its access
 * log.
 */
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
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
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { ACCESS_LOG_FORMAT, STAGE_THROTTLE, type ApiDefinition } from '../../definitions/api';
import type { FunctionName } from '../../definitions/functions';

/** Settings of the deployed API. */
export interface ServiceHttpApiProps {
  /** The routes, the authorizer and CORS. */
  readonly definition: ApiDefinition;
  /** The deployed functions, by the registry name the definition uses. */
  readonly functions: Readonly<Record<FunctionName, IFunction>>;
  /**
   * How long the gateway caches an authorizer decision per `Authorization` value; a revoked
   * token keeps working at most this long. 0 turns caching off; at most an hour.
   * @default - the definition's `authorizer.defaultCacheTtlSeconds`
   */
  readonly authCacheTtl?: Duration;
  /**
   * Origins allowed by CORS.
   * @default - the definition's `cors.defaultAllowOrigins`
   */
  readonly corsAllowOrigins?: readonly string[];
  /**
   * Steady-state requests per second the stage accepts before answering 429.
   * @default STAGE_THROTTLE.rateLimit (50)
   */
  readonly throttlingRateLimit?: number;
  /**
   * Requests the stage accepts in a burst.
   * @default STAGE_THROTTLE.burstLimit (100)
   */
  readonly throttlingBurstLimit?: number;
  /**
   * How long the access log group keeps its events.
   * @default RetentionDays.ONE_YEAR
   */
  readonly accessLogRetention?: RetentionDays;
  /**
   * What becomes of the access log group when the stack is deleted.
   * @default RemovalPolicy.RETAIN
   */
  readonly accessLogRemovalPolicy?: RemovalPolicy;
}

/** The API (`HttpApi`), its stage (`DefaultStage`) and access log (`AccessLogs`). */
export class ServiceHttpApi extends Construct {
  readonly api: HttpApi;
  readonly stage: HttpStage;
  /** The API's base URL. */
  readonly url: string;

  constructor(scope: Construct, id: string, props: ServiceHttpApiProps) {
    super(scope, id);
    const { definition, functions } = props;
    const authCacheTtl =
      props.authCacheTtl ?? Duration.seconds(definition.authorizer.defaultCacheTtlSeconds);
    if (authCacheTtl.toSeconds() > 3600) {
      throw new Error(`authCacheTtl must be at most 3600 seconds, got ${authCacheTtl.toSeconds()}`);
    }

    this.api = new HttpApi(this, 'HttpApi', {
      apiName: 'plant-store',
      description: 'Plant Store',
      createDefaultStage: false,
      corsPreflight: {
        allowOrigins: [...(props.corsAllowOrigins ?? definition.cors.defaultAllowOrigins)],
        allowHeaders: [...definition.cors.allowHeaders],
        exposeHeaders: [...definition.cors.exposeHeaders],
        allowMethods: definition.cors.allowMethods.map(
          (m) => CorsHttpMethod[m as keyof typeof CorsHttpMethod],
        ),
        maxAge: Duration.seconds(definition.cors.maxAgeSeconds),
      },
    });
    const authorizer = new HttpLambdaAuthorizer(
      'BearerAuthorizer',
      functions[definition.authorizer.function],
      {
        responseTypes: [HttpLambdaResponseType.SIMPLE],
        identitySource: [definition.authorizer.identitySource],
        resultsCacheTtl: authCacheTtl,
      },
    );
    for (const route of definition.routes) {
      this.api.addRoutes({
        path: route.path,
        methods: [HttpMethod[route.method]],
        integration: new HttpLambdaIntegration(route.function, functions[route.function]),
        authorizer: route.authorized ? authorizer : undefined,
      });
    }

    const accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: props.accessLogRetention ?? RetentionDays.ONE_YEAR,
      removalPolicy: props.accessLogRemovalPolicy ?? RemovalPolicy.RETAIN,
    });
    this.stage = new HttpStage(this, 'DefaultStage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      throttle: {
        rateLimit: props.throttlingRateLimit ?? STAGE_THROTTLE.rateLimit,
        burstLimit: props.throttlingBurstLimit ?? STAGE_THROTTLE.burstLimit,
      },
      accessLogSettings: {
        destination: new LogGroupLogDestination(accessLogs),
        format: AccessLogFormat.custom(JSON.stringify(ACCESS_LOG_FORMAT)),
      },
    });
    this.url = this.stage.url;
  }
}
