/**
 * The Plant Store stack synthesized as `cdk synth` does (cdk.json's feature flags, cdk-nag's
 * AwsSolutions checks, which fail the synth on any unacknowledged finding), in temporary folders
 * removed after the suite that imports this.
 */
import { Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { PlantStoreStack, type PlantStoreStackProps } from '../../lib/infra/plant-store-stack';
import { testApp, type TestAppOptions } from './cdk-app';

/** The stack with `props`, and the folder its assembly was written to. */
export function synthStack(
  props: PlantStoreStackProps = {},
  options: Omit<TestAppOptions, 'outdir'> = {},
): { template: Template; outdir: string; stack: PlantStoreStack } {
  const app = testApp({}, options);
  const outdir = app.outdir;
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
