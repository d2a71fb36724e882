/**
 * The CDK app's content, read from its context: `-c stage=dev|prod` and `-c capacity=1k|10k|100k`
 * (lib/infra/stages.ts), `-c alarmEmail=…`, `-c dynamoDbEndpoint=…` (sam local), `-c logLevel=DEBUG`,
 * `-c tracing=true`, `-c webhookStaticIps=true`.
 * cdk-nag's AwsSolutions checks run on every synth.
 */
import { Validations, type App } from 'aws-cdk-lib';
import type { ApplicationLogLevel } from 'aws-cdk-lib/aws-lambda';
import { AwsSolutionsChecks } from 'cdk-nag';
import { PlantStoreStack } from './plant-store-stack';
import { capacityPreset, stageSettings } from './stages';

/** Adds the Plant Store stack that the app's context asks for, and cdk-nag, to `app`. */
export function addPlantStore(app: App): PlantStoreStack {
  const context = (key: string) => {
    const value: unknown = app.node.tryGetContext(key);
    // `-c alarmEmail=` (as a workflow passes an unset variable) means none.
    return value === undefined || value === '' ? undefined : String(value);
  };
  const { stackName, ...stage } = stageSettings(context('stage'));
  const stack = new PlantStoreStack(app, stackName, {
    ...stage,
    ...capacityPreset(context('capacity')),
    alarmEmail: context('alarmEmail'),
    dynamoDbEndpoint: context('dynamoDbEndpoint'),
    applicationLogLevel: context('logLevel') as ApplicationLogLevel | undefined,
    tracing: context('tracing') === 'true',
    webhookStaticIps: context('webhookStaticIps') === 'true',
    env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
  return stack;
}
