/**
 * The Plant Store stack synthesized as `cdk synth` does (cdk.json's feature flags, cdk-nag's
 * AwsSolutions checks, which fail the synth on any unacknowledged finding), in temporary folders
 * removed after the suite that imports this.
 */
import { App, Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PlantStoreStack, type PlantStoreStackProps } from '../../lib/infra/plant-store-stack';

/** The feature flags `cdk synth` reads from cdk.json, so that the template tested is the one deployed. */
const CONTEXT = JSON.parse(readFileSync(join(__dirname, '../../cdk.json'), 'utf8')).context;

const temporary: string[] = [];
afterAll(() => {
  for (const dir of temporary.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A temporary folder, removed after the suite. */
export function tempDir(prefix: string): string {
  temporary.push(mkdtempSync(join(tmpdir(), prefix)));
  return temporary.at(-1)!;
}

/**
 * The stack with `props`, and the folder its assembly was written to. `bundle`: the functions
 * bundled as `cdk synth` does (seconds each on a busy machine), for the tests that read the
 * assets; otherwise bundling is skipped (context `aws:cdk:bundling-stacks: []`), which changes
 * no resource.
 */
export function synthStack(
  props: PlantStoreStackProps = {},
  { bundle = false } = {},
): { template: Template; outdir: string; stack: PlantStoreStack } {
  const outdir = tempDir('plant-store-cdk-');
  const context = bundle ? CONTEXT : { ...CONTEXT, 'aws:cdk:bundling-stacks': [] };
  const app = new App({ outdir, context });
  // Synthesis writes nothing on stderr but CDK's own note before it bundles each function.
  const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
  try {
    const stack = new PlantStoreStack(app, 'PlantStore', props);
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    app.synth();
    expect(
      stderr.mock.calls.filter(([chunk]) => !/^Bundling asset \S+\.\.\.\n$/.test(String(chunk))),
    ).toEqual([]);
    return { template: Template.fromStack(stack), outdir, stack };
  } finally {
    stderr.mockRestore();
  }
}

/** The template of the stack with `props`, bundling skipped. */
export const synth = (props: PlantStoreStackProps = {}): Template => synthStack(props).template;

/** The logical id of the one resource of `type` whose properties include `props`. */
export function logicalIdOf(
  template: Template,
  type: string,
  props: Record<string, unknown>,
): string {
  const [id] = Object.keys(template.findResources(type, { Properties: Match.objectLike(props) }));
  if (!id) throw new Error(`no ${type} with ${JSON.stringify(props)}`);
  return id;
}
