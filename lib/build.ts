/** Builds the function bundles with esbuild, exactly as the stack does (`lib/bundling.ts`). */
import { build, type Metafile } from 'esbuild';
import { join } from 'node:path';
import { ESBUILD_OPTIONS, PROJECT_ROOT } from './bundling';
import { FUNCTIONS, FUNCTION_NAMES, type FunctionName } from './functions';

/** One built function. */
export interface BuiltFunction {
  readonly name: FunctionName;
  /** Absolute path of the `.mjs` bundle. */
  readonly file: string;
  readonly bytes: number;
  readonly metafile: Metafile;
}

/** Builds every function into `outdir/<name>/index.mjs`. */
export async function buildFunctions(
  outdir: string,
  names: readonly FunctionName[] = FUNCTION_NAMES,
): Promise<BuiltFunction[]> {
  return Promise.all(
    names.map(async (name) => {
      const result = await build({
        ...ESBUILD_OPTIONS,
        mainFields: [...ESBUILD_OPTIONS.mainFields],
        external: [...ESBUILD_OPTIONS.external],
        alias: { ...ESBUILD_OPTIONS.alias },
        entryPoints: { index: join(PROJECT_ROOT, FUNCTIONS[name].entry) },
        outdir: join(outdir, name),
        absWorkingDir: PROJECT_ROOT,
        metafile: true,
        logLevel: 'warning',
      });
      const [file, output] = Object.entries(result.metafile.outputs)[0]!;
      return {
        name,
        file: join(PROJECT_ROOT, file),
        bytes: output.bytes,
        metafile: result.metafile,
      };
    }),
  );
}
