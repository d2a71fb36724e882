/** Builds the function bundles with esbuild, exactly as the stack does (`lib/definitions/bundling.ts`). */
import { build, type BuildOptions, type Metafile } from 'esbuild';
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

/** What a local build may add to the stack's options. */
export interface LocalBuildOptions {
  /**
   * For a debugger (`npm start -- --inspect`): an inline source map with the sources, and no
   * minifying, so that breakpoints in the `.ts` sources under `lambda/` bind. The stack never
   * asks for it: deployed bundles carry a linked map without sources (stack traces only).
   * @default false
   */
  readonly sourceMaps?: boolean;
}

/**
 * The one definition of a function's build: the stack's options, its entry point and where the
 * bundle goes (`outdir/<name>/index.mjs`). `buildFunctions` and the watcher's incremental
 * contexts both start from it.
 */
export function functionBuildOptions(
  name: FunctionName,
  outdir: string,
  local: LocalBuildOptions = {},
): BuildOptions {
  return {
    ...ESBUILD_OPTIONS,
    mainFields: [...ESBUILD_OPTIONS.mainFields],
    external: [...ESBUILD_OPTIONS.external],
    alias: { ...ESBUILD_OPTIONS.alias },
    logOverride: { ...ESBUILD_OPTIONS.logOverride },
    banner: { ...ESBUILD_OPTIONS.banner },
    outExtension: { ...ESBUILD_OPTIONS.outExtension },
    entryPoints: { index: join(PROJECT_ROOT, FUNCTIONS[name].entry) },
    outdir: join(outdir, name),
    absWorkingDir: PROJECT_ROOT,
    metafile: true,
    logLevel: 'warning',
    ...(local.sourceMaps ? { sourcemap: 'inline', sourcesContent: true, minify: false } : {}),
  };
}

/**
 * The same build for several functions at once: one entry point per function, each bundle at
 * `outdir/<name>/index.mjs`, no code shared between bundles, so every bundle is byte for byte the
 * one `functionBuildOptions` makes. The watcher keeps one incremental context of it.
 */
export function allFunctionsBuildOptions(
  names: readonly FunctionName[],
  outdir: string,
  local: LocalBuildOptions = {},
): BuildOptions {
  const [first] = names;
  if (first === undefined) throw new Error('no functions to build');
  return {
    ...functionBuildOptions(first, outdir, local),
    entryPoints: Object.fromEntries(
      names.map((name) => [`${name}/index`, join(PROJECT_ROOT, FUNCTIONS[name].entry)]),
    ),
    outdir,
  };
}

/** Builds every function into `outdir/<name>/index.mjs`. */
export async function buildFunctions(
  outdir: string,
  names: readonly FunctionName[] = FUNCTION_NAMES,
): Promise<BuiltFunction[]> {
  return Promise.all(
    names.map(async (name) => {
      const result = await build(functionBuildOptions(name, outdir));
      return builtFunction(name, result.metafile!);
    }),
  );
}

/** What a build's metafile says about the one bundle it wrote. */
export function builtFunction(name: FunctionName, metafile: Metafile): BuiltFunction {
  const [file, output] = bundleOutput(metafile);
  return { name, file: join(PROJECT_ROOT, file), bytes: output.bytes, metafile };
}

/** The bundle among a one-entry build's outputs (its source map is the other one). */
export function bundleOutput(metafile: Metafile): [string, Metafile['outputs'][string]] {
  const bundle = Object.entries(metafile.outputs).find(([file]) => !file.endsWith('.map'));
  if (!bundle) throw new Error('the build wrote no bundle');
  return bundle;
}
