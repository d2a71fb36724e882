/**
 * The CDK app as `cdk synth` builds it (lib/infra/app.ts with cdk.json's context, cdk-nag
 * included) but without bundling, in temporary folders removed after the suite that imports it; and the
 * templates it wrote, by stack name.
 */
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addPlantStore } from '../../lib/infra/app';

const CONTEXT = JSON.parse(readFileSync(join(__dirname, '../../cdk.json'), 'utf8')).context;

const folders: string[] = [];
afterAll(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** Synthesizes the app with `context` (`-c key=value` pairs); the templates by stack name. */
export function synthTemplates(context: Record<string, string>): Record<string, Template> {
  const outdir = mkdtempSync(join(tmpdir(), 'plant-store-app-'));
  folders.push(outdir);
  const app = new App({
    outdir,
    context: { ...CONTEXT, 'aws:cdk:bundling-stacks': [], ...context },
  });
  addPlantStore(app);
  const assembly = app.synth();
  return Object.fromEntries(
    assembly.stacks.map((stack) => [stack.stackName, Template.fromJSON(stack.template)]),
  );
}

/** cdk.json's context, as `cdk synth` reads it. */
export const CDK_CONTEXT: Record<string, unknown> = CONTEXT;

/** A temporary folder for an app's assembly, removed after the suite. */
export function appFolder(): string {
  folders.push(mkdtempSync(join(tmpdir(), 'plant-store-cdk-')));
  return folders.at(-1)!;
}

/**
 * Synthesizes the app with `-c` values as the CLI passes them, bundling skipped; its Plant Store
 * stack, that stack's template and the assembly's folder.
 */
export function synthApp(context: Record<string, string> = {}) {
  const outdir = appFolder();
  const app = new App({
    outdir,
    context: { ...CONTEXT, 'aws:cdk:bundling-stacks': [], ...context },
  });
  const stack = addPlantStore(app);
  app.synth();
  return { stack, template: Template.fromStack(stack), outdir };
}
