/**
 * The CDK app: `npm run synth` writes `cdk.out/`, `npm run deploy` deploys; `-c stage=dev|prod`
 * picks a stage and `-c alarmEmail=…` emails the alarms (lib/infra/app.ts reads the context).
 */
import { App } from 'aws-cdk-lib';
import { addPlantStore } from '../lib/infra/app';

addPlantStore(new App());
