/**
 * The CDK app as `cdk synth` builds it (lib/infra/app.ts with cdk.json's context, cdk-nag
 * included), in temporary folders removed after the suite that imports it; and the templates it
 * wrote, by stack name.
 */
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addPlantStore } from '../../lib/infra/app';

/** cdk.json's context, as `cdk synth` reads it. */
const CDK_CONTEXT: Record<string, unknown> = JSON.parse(
  readFileSync(join(__dirname, '../../cdk.json'), 'utf8'),
).context;

const folders: string[] = [];
afterAll(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** A temporary folder for an app's assembly, removed after the suite. */
export function appFolder(prefix = 'plant-store-cdk-'): string {
  folders.push(mkdtempSync(join(tmpdir(), prefix)));
  return folders.at(-1)!;
}

/** What a suite's app skips of what `cdk synth` does. */
export interface TestAppOptions {
  /**
   * Bundle the functions as `cdk synth` does (seconds each on a busy machine), for the tests
   * that read the assets; otherwise bundling is skipped (context `aws:cdk:bundling-stacks: []`),
   * which changes no resource. @default false
   */
  readonly bundle?: boolean;
  /**
   * Run CloudFormation's template validation, which aws-cdk-lib runs at every synth and which
   * never changes a template: its engine takes ~7 s of CPU to start in each suite. The
   * deploy-validation suite runs it on every configuration the app deploys (and shows a broken
   * template failing synth); other suites read templates and leave it off. @default false
   */
  readonly validate?: boolean;
  /** Where the assembly goes. @default a temporary folder */
  readonly outdir?: string;
}

/** An App with cdk.json's context and `context` (`-c key=value` pairs, or any value). */
export function testApp(
  context: Record<string, unknown> = {},
  { bundle = false, validate = false, outdir = appFolder() }: TestAppOptions = {},
): App {
  return new App({
    outdir,
    builtinCloudFormationValidation: validate,
    context: {
      ...CDK_CONTEXT,
      ...(bundle ? {} : { 'aws:cdk:bundling-stacks': [] }),
      ...context,
    },
  });
}

/** Synthesizes the app with `context` (`-c key=value` pairs); the templates by stack name. */
export function synthTemplates(context: Record<string, string>): Record<string, Template> {
  const app = testApp(context);
  addPlantStore(app);
  const assembly = app.synth();
  return Object.fromEntries(
    assembly.stacks.map((stack) => [stack.stackName, Template.fromJSON(stack.template)]),
  );
}

/**
 * Synthesizes the app with `-c` values as the CLI passes them, bundling skipped; its Plant Store
 * stack, that stack's template and the assembly's folder.
 */
export function synthApp(context: Record<string, string> = {}, options: TestAppOptions = {}) {
  const app = testApp(context, options);
  const stack = addPlantStore(app);
  app.synth();
  return { stack, template: Template.fromStack(stack), outdir: app.outdir };
}
