/**
 * The stack's bundling options, as CDK hands them to esbuild: the aliases are paths relative to
 * the project root, which esbuild runs in locally and which Docker bundling (no local esbuild)
 * mounts at the bundling input directory.
 */
import { AssetStaging } from 'aws-cdk-lib';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { BUNDLE_ALIASES, PROJECT_ROOT } from '../../lib/definitions/bundling';
import { nodejsBundling } from '../../lib/infra/constructs/service-function';

it("runs Docker bundling in the project's mount, where the aliases' relative paths resolve", () => {
  expect(nodejsBundling().workingDirectory).toBe(AssetStaging.BUNDLING_INPUT_DIR);
  for (const target of Object.values(BUNDLE_ALIASES)) {
    expect(target).toMatch(/^\.\//);
    expect(existsSync(join(PROJECT_ROOT, target))).toBe(true);
  }
});

it('passes every alias and log override to esbuild as its own argument', () => {
  const args = nodejsBundling().esbuildArgs!;
  expect(args['--alias']).toEqual(
    Object.entries(BUNDLE_ALIASES).map(([from, to]) => `${from}=${to}`),
  );
  expect(args['--log-override']).toEqual(['import-is-undefined=error']);
});
