/**
 * Source maps are for `npm start -- --inspect` only: the stack's bundling options carry none, a
 * function built as deployed has no source map, and one built for the debugger has an inline
 * map that names the function's TypeScript sources under `lambda/`.
 */
import { build } from 'esbuild';
import { join } from 'node:path';
import { functionBuildOptions } from '../../lib/definitions/build';
import { ESBUILD_OPTIONS, PROJECT_ROOT } from '../../lib/definitions/bundling';
import { FUNCTIONS, FUNCTION_NAMES } from '../../lib/definitions/functions';

const name = FUNCTION_NAMES[0]!;
const outdir = join(PROJECT_ROOT, '.plant-store', 'source-map-test');
const built = async (sourceMaps: boolean) => {
  const result = await build({
    ...functionBuildOptions(name, outdir, { sourceMaps }),
    write: false,
  });
  return result.outputFiles.map((file) => file.text);
};

it('the stack bundles without source maps', () => {
  expect(ESBUILD_OPTIONS.sourcemap).toBe(false);
});

it('a function built as deployed carries no source map', async () => {
  const [bundle, ...others] = await built(false);
  expect(others).toHaveLength(0);
  expect(bundle).not.toContain('sourceMappingURL');
});

it('a function built for the debugger carries an inline map of its .ts sources', async () => {
  const [bundle, ...others] = await built(true);
  expect(others).toHaveLength(0);
  const url = /\/\/# sourceMappingURL=data:application\/json;base64,(\S+)\s*$/.exec(bundle!);
  expect(url).not.toBeNull();
  const map = JSON.parse(Buffer.from(url![1]!, 'base64').toString('utf8')) as {
    sources: string[];
    sourcesContent: string[];
  };
  const sources = map.sources.map((source) => join(outdir, name, source));
  expect(sources).toContain(join(PROJECT_ROOT, FUNCTIONS[name].entry));
  expect(map.sourcesContent.length).toBe(map.sources.length);
});
