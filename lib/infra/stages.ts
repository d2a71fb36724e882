/**
 * The deployment stages, chosen with `cdk deploy -c stage=<name>`: each is its own stack with its
 * own throttle, log retention and removal policies. Without a stage the app deploys the stack
 * `PlantStore` with the stack's defaults. docs/operations.md says why each value is what it is.
 */
import { RemovalPolicy } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { UsageError } from '../cli-args';
import type { PlantStoreStackProps } from './plant-store-stack';

/** What a stage decides; anything else comes from the stack's defaults or the context. */
export type StageSettings = Pick<
  PlantStoreStackProps,
  | 'throttlingRateLimit'
  | 'throttlingBurstLimit'
  | 'logRetention'
  | 'logRemovalPolicy'
  | 'accessLogRetention'
  | 'accessLogRemovalPolicy'
  | 'alarmKeyRemovalPolicy'
> & {
  /** The CloudFormation stack name. */
  readonly stackName: string;
};

/** The stack deployed when no stage is named (the stack's own defaults). */
export const DEFAULT_STACK_NAME = 'PlantStore';

/** Every stage, by the name given to `-c stage=`. */
export const STAGES = {
  /** A developer's or a pull request's stack: torn down often, so nothing outlives it. */
  dev: {
    stackName: 'PlantStore-dev',
    throttlingRateLimit: 10,
    throttlingBurstLimit: 20,
    logRetention: RetentionDays.ONE_WEEK,
    logRemovalPolicy: RemovalPolicy.DESTROY,
    accessLogRetention: RetentionDays.ONE_WEEK,
    accessLogRemovalPolicy: RemovalPolicy.DESTROY,
    alarmKeyRemovalPolicy: RemovalPolicy.DESTROY,
  },
  /** The service users call: its logs are the audit trail and outlive the stack. */
  prod: {
    stackName: 'PlantStore-prod',
    throttlingRateLimit: 50,
    throttlingBurstLimit: 100,
    logRetention: RetentionDays.THREE_MONTHS,
    logRemovalPolicy: RemovalPolicy.RETAIN,
    accessLogRetention: RetentionDays.ONE_YEAR,
    accessLogRemovalPolicy: RemovalPolicy.RETAIN,
    alarmKeyRemovalPolicy: RemovalPolicy.RETAIN,
  },
} as const satisfies Record<string, StageSettings>;

/** A stage's name. */
export type StageName = keyof typeof STAGES;

/**
 * The settings of `-c stage=<name>` (the default stack when `name` is undefined); an unknown
 * name is an error that lists the stages.
 */
export function stageSettings(name: string | undefined): StageSettings {
  if (name === undefined) return { stackName: DEFAULT_STACK_NAME };
  if (!Object.hasOwn(STAGES, name)) {
    throw new UsageError(
      `unknown stage ${JSON.stringify(name)}: use -c stage=${Object.keys(STAGES).join('|')}, or no stage for the ${DEFAULT_STACK_NAME} stack`,
    );
  }
  return STAGES[name as StageName];
}
