/**
 * The GitHub workflows: valid against the workflow schema (action-validator, the schema
 * GitHub's own editor uses), and doing what docs/operations.md says: CI installs, tests and
 * synthesizes; Deploy assumes a role through OIDC, by hand or on a tag, and runs `cdk diff`
 * before `cdk deploy` for the chosen stage.
 */
import { validateWorkflow } from '@action-validator/core';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { STAGES } from '../../lib/infra/stages';

const WORKFLOWS = join(__dirname, '../../.github/workflows');
const read = (file: string) => readFileSync(join(WORKFLOWS, file), 'utf8');

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
}
const stepsOf = (workflow: { jobs: Record<string, { steps: Step[] }> }) =>
  Object.values(workflow.jobs).flatMap((job) => job.steps);

it.each(['ci.yml', 'deploy.yml'])('%s is a valid workflow', (file) => {
  expect(validateWorkflow(read(file)).errors).toEqual([]);
});

it('the validator does reject a broken workflow', () => {
  const broken = read('ci.yml').replace('runs-on: ubuntu-24.04', 'runs-on: [1, {}]');
  expect(validateWorkflow(broken).errors.length).toBeGreaterThan(0);
});

it('CI installs from the lock file, runs npm test and synthesizes each stage', () => {
  const runs = stepsOf(parse(read('ci.yml'))).map((step) => step.run ?? '');
  const ciRun = readFileSync(join(__dirname, '../../.ci/run'), 'utf8');
  expect(runs).toContain('bash .ci/run');
  expect(ciRun).toMatch(/^npm ci /m);
  expect(ciRun).toMatch(/^npm test$/m);
  const synth = runs.find((run) => run.includes('cdk synth'))!;
  for (const stage of Object.keys(STAGES)) expect(synth).toContain(`-c stage=${stage}`);
});

describe('Deploy', () => {
  const workflow = parse(read('deploy.yml'));
  const steps = stepsOf(workflow);

  it('runs by hand for a chosen stage, or on a v* tag', () => {
    expect(workflow.on.workflow_dispatch.inputs.stage.options).toEqual(Object.keys(STAGES));
    expect(workflow.on.push).toEqual({ tags: ['v*'] });
  });

  it('assumes a role through OIDC, with no stored keys', () => {
    expect(workflow.permissions).toEqual({ contents: 'read', 'id-token': 'write' });
    const credentials = steps.find((step) =>
      step.uses?.startsWith('aws-actions/configure-aws-credentials@'),
    );
    expect(credentials?.with).toEqual({
      'role-to-assume': '${{ vars.AWS_DEPLOY_ROLE_ARN }}',
      'aws-region': '${{ vars.AWS_REGION }}',
    });
    expect(read('deploy.yml')).not.toMatch(/aws-access-key-id|secrets\./);
  });

  it('runs cdk diff, then cdk deploy, for the stage with its alarm email', () => {
    const cdk = steps.filter((step) => step.run?.startsWith('npx cdk')).map((step) => step.run);
    expect(cdk).toEqual([
      'npx cdk diff --no-notices -c stage="$STAGE" -c alarmEmail="$ALARM_EMAIL"',
      'npx cdk deploy --no-notices --require-approval never -c stage="$STAGE" -c alarmEmail="$ALARM_EMAIL"',
    ]);
    expect(workflow.jobs.deploy.env).toEqual({
      STAGE: "${{ inputs.stage || 'prod' }}",
      ALARM_EMAIL: '${{ vars.ALARM_EMAIL }}',
    });
  });
});
