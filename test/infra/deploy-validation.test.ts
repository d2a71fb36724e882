/**
 * The synth checks a deployment would otherwise be the first to run: CloudFormation's own template
 * validation (the validator aws-cdk-lib bundles) and cdk-nag, on the app's stacks, and shown to
 * fail synth on a broken construct, so neither check can be off.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CfnResource, Stack, Validations } from 'aws-cdk-lib';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { AwsSolutionsChecks } from 'cdk-nag';
import { createRequire } from 'node:module';
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

  it.each<Record<string, string>>([
    {},
    { alarmEmail: 'ops@example.com' },
    { stage: 'dev' },
    { stage: 'prod', alarmEmail: 'ops@example.com' },
    { webhookStaticIps: 'true' },
    { stage: 'prod', capacity: '100k' },
    // The deploy roles' stacks too (the report covers every stack of the app).
    { githubRepository: 'octo-org/plant-store', githubOwnerId: '1', githubRepositoryId: '2' },
  ])('finds nothing in the templates synthesized with %p', (context) => {
    // synth throws on any cdk-nag finding or CloudFormation validation error (cdk.json's
    // @aws-cdk/core:validateAgainstDefaultRules), and writes the validator's report. The other
    // suites leave the validation off (it never changes a template); these are the app's
    // configurations, each stage and option a deploy can take.
    const { stack, outdir: dir } = synthApp(context, { validate: true });
    const report = JSON.parse(readFileSync(join(dir, 'validation-report.json'), 'utf8'));
    expect(report.pluginReports.flatMap((r: { violations: unknown[] }) => r.violations)).toEqual(
      [],
    );
    const engine = new validator.CompositeEngine();
    try {
      const template = readFileSync(join(dir, stack.templateFile), 'utf8');
      const { diagnostics } = engine.validateTemplate(
        new validator.TemplateContent(template, stack.templateFile),
        { severityLevel: 'WARN' },
      );
      expect(diagnostics.map((d) => `${d.severity} ${d.ruleId} ${d.message}`)).toEqual([]);
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
