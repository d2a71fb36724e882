/**
 * The synth checks a deployment would otherwise be the first to run: CloudFormation's own template
 * validation (the validator aws-cdk-lib bundles) and cdk-nag, on the app's stacks, and shown to
 * fail synth on a broken construct, so neither check can be off.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CfnResource, Stack, Validations } from 'aws-cdk-lib';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { AwsSolutionsChecks } from 'cdk-nag';
import { createRequire } from 'node:module';
import { CAPACITY_PRESETS } from '../../lib/infra/stages';
import { synthApp, testApp } from '../support/cdk-app';

describe('CloudFormation validation and cdk-nag', () => {
  // aws-cdk-lib bundles the validator it runs at synth; the test asks it directly as well.
  const validator = createRequire(require.resolve('aws-cdk-lib/package.json'))(
    '@aws/cloudformation-validate',
  ) as {
    CompositeEngine: new () => {
      validateTemplate(
        template: unknown,
        config: { severityLevel: string },
      ): { diagnostics: { severity: string; ruleId: string; message: string }[] };
      free(): void;
    };
    TemplateContent: new (content: string, name: string) => unknown;
  };

  const repository = {
    githubRepository: 'octo-org/plant-store',
    githubOwnerId: '1',
    githubRepositoryId: '2',
  };
  it.each<Record<string, string>>([
    {},
    { alarmEmail: 'ops@example.com' },
    { stage: 'dev' },
    { stage: 'prod', alarmEmail: 'ops@example.com' },
    { webhookStaticIps: 'true' },
    { logLevel: 'DEBUG', tracing: 'true' },
    ...Object.keys(CAPACITY_PRESETS).map((capacity) => ({ stage: 'prod', capacity })),
    // With the deploy roles' stacks, each stage's, with and without the static egress.
    repository,
    { ...repository, stage: 'dev', webhookStaticIps: 'true' },
    { ...repository, stage: 'prod', webhookStaticIps: 'true' },
    { ...repository, sharedAccount: 'true' },
  ])('finds nothing in the templates synthesized with %p', (context) => {
    // synth throws on any cdk-nag finding or CloudFormation validation error (cdk.json's
    // @aws-cdk/core:validateAgainstDefaultRules), and writes the validator's report. The other
    // suites leave the validation off (it never changes a template); these are the app's
    // configurations, each stage and option a deploy can take.
    const { outdir: dir } = synthApp(context, { validate: true });
    const report = JSON.parse(readFileSync(join(dir, 'validation-report.json'), 'utf8'));
    expect(report.pluginReports.flatMap((r: { violations: unknown[] }) => r.violations)).toEqual(
      [],
    );
    // And the validator's warnings, which synth lets pass, on every stack of the app.
    const engine = new validator.CompositeEngine();
    try {
      const warnings = readdirSync(dir)
        .filter((file) => file.endsWith('.template.json'))
        .flatMap((file) =>
          engine
            .validateTemplate(
              new validator.TemplateContent(readFileSync(join(dir, file), 'utf8'), file),
              { severityLevel: 'WARN' },
            )
            .diagnostics.map((d) => `${file}: ${d.severity} ${d.ruleId} ${d.message}`),
        );
      expect(warnings).toEqual([]);
    } finally {
      engine.free();
    }
  });

  /** A throwaway app with the project's context and checks, holding one broken construct. */
  function brokenApp(build: (stack: Stack) => void) {
    const app = testApp({}, { validate: true });
    build(new Stack(app, 'Broken'));
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    return app;
  }

  it('fails synth on a CloudFormation schema violation, so the check cannot be off', () => {
    const app = brokenApp(
      (stack) =>
        new CfnResource(stack, 'Queue', {
          type: 'AWS::SQS::Queue',
          properties: { SqsManagedSseEnabled: true, MessageRetentionPeriod: 'a week' },
        }),
    );
    expect(() => app.synth()).toThrow(/MessageRetentionPeriod/);
  });

  it('fails synth on a cdk-nag finding', () => {
    const app = brokenApp((stack) => new Topic(stack, 'Unencrypted'));
    expect(() => app.synth()).toThrow(/AwsSolutions-SNS/);
  });
});
