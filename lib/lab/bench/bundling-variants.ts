/**
 * What each bundling choice buys for create-plant, on Lambda's Node: size and the cold import
 * over a bare handler, from esbuild's defaults to the stack's options, one choice at a time.
 */
import { build, type BuildOptions } from 'esbuild';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BUNDLE_ALIASES, ESBUILD_OPTIONS, PROJECT_ROOT } from '../../definitions/bundling';
import { FUNCTIONS, type FunctionName } from '../../definitions/functions';
import { alternatingPairs, childEnvironment, freshProcess, ms, signedMs } from './measure';
import type { BenchContext, BenchPhase } from './phase';

/** The bundling-variants phase. */
export const bundlingVariants: BenchPhase = {
  name: 'variants',
  description: 'what each bundling choice buys for create-plant (size, cold import)',
  async run({ dir: root, runs, lambdaNode, print }: BenchContext) {
    const dir = join(root, 'variants');
    mkdirSync(dir, { recursive: true });
    const bare = join(dir, 'bare.mjs');
    writeFileSync(bare, 'export const handler = async () => ({ statusCode: 200 });\n');
    const name: FunctionName = 'create-plant';
    const base: BuildOptions = {
      bundle: true,
      platform: 'node',
      target: ESBUILD_OPTIONS.target,
      entryPoints: [join(PROJECT_ROOT, FUNCTIONS[name].entry)],
      absWorkingDir: PROJECT_ROOT,
      metafile: true,
      logLevel: 'error',
    };
    const esm: BuildOptions = {
      format: 'esm',
      mainFields: [...ESBUILD_OPTIONS.mainFields],
      banner: { ...ESBUILD_OPTIONS.banner },
    };
    const min: BuildOptions = { ...esm, minify: true };
    const ext: BuildOptions = { ...min, external: [...ESBUILD_OPTIONS.external] };
    const aliases = Object.entries(BUNDLE_ALIASES);
    const variants: [string, BuildOptions][] = [
      ['CommonJS, not minified, every provider (esbuild defaults)', { format: 'cjs' }],
      ['+ ESM (module entry points)', esm],
      ['+ minified', min],
      ['+ unused credential providers left out', ext],
      // Each alias of the stack in turn, the last line being the stack's own options.
      ...aliases.map(([from], index): [string, BuildOptions] => [
        `+ ${from} replaced${index === aliases.length - 1 ? ' (= the stack)' : ''}`,
        { ...ext, alias: Object.fromEntries(aliases.slice(0, index + 1)) },
      ]),
    ];
    const env = childEnvironment({ PLANTS_TABLE_NAME: 'plants' });
    const importing = (file: string) => () =>
      freshProcess(
        lambdaNode.path,
        `await import(${JSON.stringify(pathToFileURL(file).href)});`,
        env,
      );
    print(
      `What each bundling choice buys (${name}, Node ${lambdaNode.major}, ${runs} alternating pairs, medians):`,
    );
    for (const [index, [label, options]] of variants.entries()) {
      const file = join(dir, `variant-${index}.${options.format === 'cjs' ? 'cjs' : 'mjs'}`);
      const result = await build({ ...base, ...options, outfile: file });
      const bytes = Object.values(result.metafile!.outputs)[0]!.bytes;
      const { wall: f, cpu } = await alternatingPairs(runs, importing(file), importing(bare));
      print(
        `  ${label}: ${(bytes / 1024).toFixed(1)} KiB, cold import ${ms(f.subjectMs)}, ${signedMs(f.extraMs)} over bare, ${f.ratio.toFixed(2)}× (CPU time ${signedMs(cpu.extraMs)})`,
      );
    }
    print();
  },
};
