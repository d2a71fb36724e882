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
