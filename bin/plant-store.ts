/**
 * The CDK app: `npm run synth` writes `cdk.out/`, `npm run deploy` deploys; `-c stage=dev|prod`
 * picks a stage and `-c alarmEmail=…` emails the alarms (lib/infra/app.ts reads the context).
 */
import { App } from 'aws-cdk-lib';
import { UsageError } from '../lib/cli/args';
import { addPlantStore } from '../lib/infra/app';

try {
  addPlantStore(new App());
} catch (error) {
  // A mistake in the context (-c stage=...) is one line; cdk then says the app exited with 1.
  if (!(error instanceof UsageError)) throw error;
  process.stderr.write(`plant-store: ${error.message}\n`);
  process.exitCode = 1;
}
