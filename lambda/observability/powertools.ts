/**
 * Observability at run time: the Powertools logger and metrics every function uses, built on
 * first use, and one wrapper that gives each invocation exactly one log line with its outcome and
 * flushes its metrics (EMF on stdout). The names they emit are in `metrics-contract.ts`.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { Context } from 'aws-lambda';
import {
  METRICS_NAMESPACE,
  OUTCOME_METRICS,
  REASON_DIMENSION,
  type Outcome,
} from './metrics-contract';
import { mapStackTraces } from './stack-map';

// Every function logs through this module: its stack traces name the `.ts` lines once it loads.
mapStackTraces();

/** The service name: the function's name in the registry, as the stack and `npm start` set it. */
function serviceName(env: NodeJS.ProcessEnv = process.env): string {
  return env.POWERTOOLS_SERVICE_NAME || env.AWS_LAMBDA_FUNCTION_NAME || 'plant-store';
}

// Built on first use, not at import: each opens Powertools' own Console on `process.stdout` and
// `process.stderr`, whose streams Node creates when first read. That is most of what Powertools
// costs a cold import (`npm run bench -- --phases observability`); the first request pays it.
let builtLogger: Logger | undefined;
let builtMetrics: Metrics | undefined;

/** The logger; its level comes from Lambda's application log level (`AWS_LAMBDA_LOG_LEVEL`). */
export function logger(): Logger {
  return (builtLogger ??= new Logger({ serviceName: serviceName() }));
}

/** The metrics, in namespace `PlantStore` with the function's name as the `service` dimension. */
export function metrics(): Metrics {
  return (builtMetrics ??= new Metrics({
    namespace: METRICS_NAMESPACE,
    serviceName: serviceName(),
  }));
}

/** The fields of a request's log line besides its outcome; never a token, hash or body. */
export interface RequestFields {
  /** The gateway's request id (`requestContext.requestId`). */
  readonly requestId?: string;
  /** The caller's public token id. */
  readonly tokenId?: string;
  /** The plant's id, as a decimal string (every digit kept). */
  readonly plantId?: string;
  /** Which rule a rejected request broke. */
  readonly rule?: string;
  /** Why the authorizer denied. */
  readonly reason?: string;
  /** A failure's details (5xx only). */
  readonly error?: unknown;
}

/** Anything shaped like a token, a webhook secret or a SHA-256 hex digest, so no line can ever carry one. */
const SECRET_SHAPES = /pst_[\w-]{8,}|whsec_[\w+/=]{8,}|\b[0-9a-f]{64}\b/gi;

/** `text` with anything secret-shaped replaced, cut to `max` characters. */
export function redact(text: string, max = 300): string {
  const clean = text.replace(SECRET_SHAPES, '[redacted]');
  return clean.length > max ? `${clean.slice(0, max)}…` : clean;
}

/** One request's log line: fields gathered as the handler learns them, written once. */
export class RequestLog {
  private fields: RequestFields;
  private written = false;

  constructor(requestId: string | undefined) {
    this.fields = requestId ? { requestId } : {};
  }

  /** Adds fields (token id, plant id…) to the line. */
  set(fields: RequestFields): void {
    this.fields = { ...this.fields, ...fields };
  }

  /** True once the outcome is recorded. */
  get done(): boolean {
    return this.written;
  }

  /** Counts the outcome's metric and writes the line; later calls are ignored. */
  outcome(outcome: Outcome, fields: RequestFields = {}): void {
    if (this.written) return;
    this.written = true;
    const { rule, reason, error, ...rest } = { ...this.fields, ...fields };
    const line = {
      ...rest,
      ...(rule === undefined ? {} : { rule: redact(rule) }),
      ...(reason === undefined ? {} : { reason }),
    };
    const metric = OUTCOME_METRICS[outcome];
    if (outcome === 'denied' && reason !== undefined) {
      // A single-metric flush of its own, so the reason dimension touches nothing else.
      const denied = metrics().singleMetric();
      denied.addDimension(REASON_DIMENSION, reason);
      denied.addMetric(metric, MetricUnit.Count, 1);
    } else {
      metrics().addMetric(metric, MetricUnit.Count, 1);
    }
    if (error === undefined) logger().info(outcome, line);
    else logger().error(outcome, { ...line, error: describeError(error) });
  }
}

/** An error's name, message, stack and cause, with anything secret-shaped redacted. */
function describeError(error: unknown): Record<string, string> | string {
  if (!(error instanceof Error)) return redact(String(error));
  return {
    name: error.name,
    message: redact(error.message, 1000),
    stack: redact(error.stack ?? '', 4000),
    ...(error.cause === undefined ? {} : { cause: redact(String(error.cause), 1000) }),
  };
}

/** A handler that is given its request's log line. */
export type ObservedHandler<E, R> = (event: E, log: RequestLog) => Promise<R>;

/** The gateway's request id of a payload 2.0 event, if it has one. */
function requestIdOf(event: unknown): string | undefined {
  const id = (event as { requestContext?: { requestId?: unknown } } | undefined)?.requestContext
    ?.requestId;
  return typeof id === 'string' ? id : undefined;
}

/**
 * Wraps a handler: Lambda's context goes to the logger, a handler that throws before recording
 * an outcome is logged as `error`, and the invocation's metrics are flushed however it ends.
 */
export function withObservability<E, R>(
  handler: ObservedHandler<E, R>,
): (event: E, context?: Context) => Promise<R> {
  return observed(async (event) => {
    const log = new RequestLog(requestIdOf(event));
    try {
      return await handler(event, log);
    } catch (error) {
      log.outcome('error', { error });
      throw error;
    }
  });
}

/**
 * The frame of every handler, with a log line per request or not (the webhook's batches): Lambda's
 * context goes to the logger, and the invocation's metrics are flushed however it ends.
 */
export function observed<E, R>(
  handler: (event: E, context?: Context) => Promise<R>,
): (event: E, context?: Context) => Promise<R> {
  return async (event, context) => {
    if (context) logger().addContext(context);
    try {
      return await handler(event, context);
    } finally {
      // Nothing to flush unless something built the metrics and added one.
      if (builtMetrics?.hasStoredMetrics()) builtMetrics.publishStoredMetrics();
    }
  };
}
