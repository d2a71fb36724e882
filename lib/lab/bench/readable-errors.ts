/**
 * What readable errors cost at cold start: each function built three ways — minified without a
 * map, as deployed (a linked map, run with the stack's `NODE_OPTIONS`, none: the function reads
 * its map when a stack with one of its frames is formatted, names and all), and as deployed with
 * esbuild's `keepNames` too (the names' other way, which the functions do not take) — imported by
 * fresh processes of Lambda's Node, round-robin. Each process also formats one error's stack
 * after the import (its frames are the caller's, not the bundle's).
 */
import { build, type BuildOptions } from 'esbuild';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { bundleOutput, functionBuildOptions } from '../../definitions/build';
import { FUNCTION_NODE_OPTIONS } from '../../definitions/bundling';
import { FUNCTION_NAMES, tableEnvironment, type FunctionName } from '../../definitions/functions';
import { localWebhookEnvironment } from '../../npm-start/in-process';
import { childEnvironment, freshProcess, median, ms, signedMs } from './measure';
import type { BenchPhase } from './phase';

/** The builds of one function, in the order each round runs them. */
const VARIANTS = {
  before: { keepNames: false, sourcemap: false, nodeOptions: [] as readonly string[] },
  deployed: { keepNames: false, sourcemap: 'linked', nodeOptions: FUNCTION_NODE_OPTIONS },
  keepNames: { keepNames: true, sourcemap: 'linked', nodeOptions: FUNCTION_NODE_OPTIONS },
} as const;
type Variant = keyof typeof VARIANTS;
const NAMES = Object.keys(VARIANTS) as Variant[];

/** Bundle and map sizes of one build, in KiB. */
interface Built {
  readonly file: string;
  readonly kib: number;
  readonly mapKib: number;
}

async function buildVariant(name: FunctionName, outdir: string, variant: Variant): Promise<Built> {
  const { keepNames, sourcemap } = VARIANTS[variant];
  const changes = { keepNames, sourcemap };
  const options: BuildOptions = {
    ...functionBuildOptions(name, join(outdir, variant)),
    ...changes,
    logLevel: 'error',
  };
  const result = await build(options);
  const [path, output] = bundleOutput(result.metafile!);
  const file = join(options.absWorkingDir!, path);
  const map = `${file}.map`;
  return {
    file,
    kib: output.bytes / 1024,
    mapKib: changes.sourcemap ? statSync(map).size / 1024 : 0,
  };
}

/** The `readable` phase of `npm run bench`. */
export const readableErrors: BenchPhase = {
  name: 'readable',
  description:
    "readable errors at cold start: a linked source map with the stack's NODE_OPTIONS, and what esbuild's keepNames would add",
  async run({ runs, dir, lambdaNode, print }) {
    print(
      `Readable errors at cold start (${runs} rounds of a fresh import and one error's stack, Node ${lambdaNode.major}, medians; CPU time in brackets):`,
    );
    for (const name of FUNCTION_NAMES) {
      const built = {} as Record<Variant, Built>;
      for (const variant of NAMES) {
        built[variant] = await buildVariant(name, join(dir, 'readable'), variant);
      }
      const run = (variant: Variant) =>
        freshProcess(
          lambdaNode.path,
          [
            `await import(${JSON.stringify(pathToFileURL(built[variant].file).href)});`,
            "if (!new Error('bench').stack) process.exit(1);",
          ].join('\n'),
          childEnvironment({
            AWS_LAMBDA_FUNCTION_NAME: name,
            ...tableEnvironment(name, (_, table) => table.localName),
            ...localWebhookEnvironment(name, 'http://127.0.0.1:8000'),
            ...(VARIANTS[variant].nodeOptions.length > 0 && {
              NODE_OPTIONS: VARIANTS[variant].nodeOptions.join(' '),
            }),
          }),
        );
      for (const variant of NAMES) await run(variant); // warm the file cache
      const wall: Record<Variant, number[]> = { before: [], deployed: [], keepNames: [] };
      const cpu: Record<Variant, number[]> = { before: [], deployed: [], keepNames: [] };
      for (let round = 0; round < runs; round++) {
        for (const variant of NAMES) {
          const time = await run(variant);
          wall[variant].push(time.wallMs);
          cpu[variant].push(time.cpuMs);
        }
      }
      const extra = (of: Record<Variant, number[]>, a: Variant, b: Variant) =>
        median(of[a].map((t, round) => t - of[b][round]!));
      const { before, deployed, keepNames } = built;
      print(
        `  ${name}: no map ${before.kib.toFixed(1)} KiB ${ms(median(wall.before))}; ` +
          `+ map, as deployed: map ${deployed.mapKib.toFixed(1)} KiB ${ms(median(wall.deployed))} ` +
          `(${signedMs(extra(wall, 'deployed', 'before'))} [${signedMs(extra(cpu, 'deployed', 'before'))}]); ` +
          `+ keepNames, not taken: ${keepNames.kib.toFixed(1)} KiB (+${(keepNames.kib - deployed.kib).toFixed(1)}) ${ms(median(wall.keepNames))} ` +
          `(${signedMs(extra(wall, 'keepNames', 'deployed'))} [${signedMs(extra(cpu, 'keepNames', 'deployed'))}])`,
      );
    }
    print();
  },
};
