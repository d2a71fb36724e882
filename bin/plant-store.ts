/** The CDK app: `npm run synth` writes `cdk.out/`, `npm run deploy` deploys. */
import { App, Validations } from 'aws-cdk-lib';
import type { ApplicationLogLevel } from 'aws-cdk-lib/aws-lambda';
import { AwsSolutionsChecks } from 'cdk-nag';
import { PlantStoreStack } from '../lib/plant-store-stack';

const app = new App();
new PlantStoreStack(app, 'PlantStore', {
  description: 'Plant Store: POST /plants behind an HTTP API with a bearer-token authorizer',
  alarmEmail: app.node.tryGetContext('alarmEmail') as string | undefined,
  dynamoDbEndpoint: app.node.tryGetContext('dynamoDbEndpoint') as string | undefined,
  // -c logLevel=DEBUG, -c tracing=true
  applicationLogLevel: app.node.tryGetContext('logLevel') as ApplicationLogLevel | undefined,
  tracing: String(app.node.tryGetContext('tracing')) === 'true',
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
});
Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
