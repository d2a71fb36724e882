/**
 * The function bundles of a local run, built with the stack's options (`functionBuildOptions`)
 * through one esbuild incremental context for all functions (one context per function kept
 * esbuild's service at ~250 MiB). In watch mode a change under `lambda/` rebuilds once and swaps
 * only the bundles whose output changed, and a change to `lib/definitions/api.ts` is reported so that the
 * runtime can restart its gateway. A failed build is printed and changes nothing.
 */
import {
  build,
  context,
  formatMessages,
  type BuildContext,
  type BuildOptions,
  type Message,
} from 'esbuild';
import { watch } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { allFunctionsBuildOptions } from '../../definitions/build';
import { PROJECT_ROOT } from '../../definitions/bundling';
import type { ApiDefinition } from '../../definitions/api';
import { FUNCTIONS, type FunctionName } from '../../definitions/functions';
import {
  cacheSlot,
  readCachedBuild,
  writeCachedBuild,
  type CachedBuild,
  type CacheSlot,
} from './bundle-cache';
import { watchTree } from './tree-watch';

/** What the runtime does with builds and changes. */
export interface BundlesOptions {
  /** Where the bundles go (`<outdir>/<name>/index.mjs`). */
  readonly outdir: string;
  readonly names: readonly FunctionName[];
  /** Keep watching after the first build. */
  readonly watch: boolean;
  /** Inline source maps with the sources, unminified (for a debugger). @default false */
  readonly sourceMaps?: boolean;
  readonly log: (line: string) => void;
  /** A bundle was rebuilt with a different output. */
  readonly onRebuilt: (name: FunctionName, file: string) => Promise<void>;
  /** `lib/definitions/api.ts` changed. */
  readonly onApiChanged: () => Promise<void>;
}

/** The built bundles, kept up to date while watching. */
export interface Bundles {
  /** Absolute path of each function's bundle. */
  readonly files: ReadonlyMap<FunctionName, string>;
  /**
   * Resolves at once, or, while a saved change to one of the function's inputs is being built
   * and swapped in, once it is (built or failed): a request that arrives after a save gets the
   * new code, as the banner promises.
   */
  settled(name: FunctionName): Promise<void>;
  /** Stops watching and disposes of the context. */
  close(): Promise<void>;
}

interface Bundle {
  readonly file: string;
  contents: Uint8Array | undefined;
  inputs: Set<string>;
}

type Rebuilt = { errors: Message[] } | { errors?: undefined; changed: FunctionName[] };

/** Builds every bundle once and, with `watch`, keeps rebuilding them on change. */
export async function buildBundles(options: BundlesOptions): Promise<Bundles> {
  const bundles = new Map<FunctionName, Bundle>(
    options.names.map((name) => [
      name,
      {
        file: resolve(PROJECT_ROOT, options.outdir, name, 'index.mjs'),
        contents: undefined,
        inputs: new Set(),
      },
    ]),
  );
  const buildOptions: BuildOptions = {
    ...allFunctionsBuildOptions(options.names, options.outdir, {
      sourceMaps: options.sourceMaps,
    }),
    write: false,
    logLevel: 'silent',
  };
  // The incremental context, made for the first build the cache cannot give (esbuild's service
  // then stays up while watching).
  let ctx: BuildContext | undefined;
  // Cache writes under way, after the bundles they keep are served; `close` waits for them.
  const writes = new Set<Promise<void>>();
  const rebuild = async (slot = cacheSlot(buildOptions)): Promise<Rebuilt> => {
    ctx ??= await context(buildOptions);
    const built = await runBuild(ctx, slot);
    if ('errors' in built) return built;
    const rebuilt = await apply(built, bundles);
    const write = built.keep().finally(() => writes.delete(write));
    writes.add(write);
    return rebuilt;
  };
  // One slot for the first build, read from the cache or built into it.
  const slot = cacheSlot(buildOptions);
  const cached = await readCachedBuild(slot);
  const first: Rebuilt = cached
    ? await apply(cached, bundles)
    : await rebuild(slot).catch(async (error: unknown) => {
        await ctx?.dispose();
        throw error;
      });
  if (first.errors) {
    await ctx?.dispose();
    throw new Error(`building the functions failed: ${oneLine(first.errors[0]!)}`);
  }
  const files = () => new Map([...bundles].map(([name, bundle]) => [name, bundle.file]));
  if (!options.watch) {
    await ctx?.dispose();
    return {
      files: files(),
      settled: async () => undefined,
      close: async () => void (await Promise.all(writes)),
    };
  }

  const changed = new Set<string>();
  let apiChanged = false;
  // After a failed build the inputs are those of the last good one; any change may fix it.
  let failed = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  /** The functions whose inputs changed and are not rebuilt yet, and what they wait on. */
  let pending: { names: Set<FunctionName>; done: Promise<void>; resolve: () => void } | undefined;
  const hold = (path: string) => {
    const names = [...bundles]
      .filter(([, bundle]) => failed || includes(bundle.inputs, path))
      .map(([name]) => name);
    if (names.length === 0) return;
    if (!pending) {
      let resolve!: () => void;
      const done = new Promise<void>((r) => (resolve = r));
      pending = { names: new Set(), done, resolve };
    }
    for (const name of names) pending.names.add(name);
  };
  const schedule = () => {
    clearTimeout(timer);
    // Editors write a file in more than one step; one short pause gathers them.
    timer = setTimeout(() => {
      timer = undefined;
      running = running.then(flush).finally(() => {
        // Settled once nothing more waits to be built (a save during this build runs again).
        if (timer === undefined && changed.size === 0 && !apiChanged) {
          pending?.resolve();
          pending = undefined;
        }
      });
    }, 15);
  };
  const flush = async () => {
    const paths = [...changed];
    changed.clear();
    if (apiChanged) {
      apiChanged = false;
      await options.onApiChanged();
    }
    const affected = [...bundles]
      .filter(([, bundle]) => paths.some((p) => includes(bundle.inputs, p)))
      .map(([name]) => name);
    if (affected.length === 0 && !(failed && paths.length > 0)) return;
    const started = performance.now();
    const result = await rebuild();
    if (result.errors) {
      failed = true;
      const text = await formatMessages(result.errors, { kind: 'error', color: false });
      const names = affected.length > 0 ? affected.join(', ') : 'functions';
      options.log(
        `[watch] ${names}: the build failed; the previous build keeps serving\n${text.join('').trimEnd()}`,
      );
      return;
    }
    failed = false;
    const ms = (performance.now() - started).toFixed(0);
    // A rebuild whose output is unchanged (a comment, say) swaps nothing.
    for (const name of result.changed) {
      options.log(`[watch] ${name}: rebuilt in ${ms} ms; new sandboxes run the new code`);
    }
    await Promise.all(
      result.changed.map((name) => options.onRebuilt(name, bundles.get(name)!.file)),
    );
  };

  // Each directory, not the files nor one recursive watcher: editors and git save by renaming
  // a new file over the old one, which a watcher of the old inode no longer sees.
  const lambdaWatcher = await watchTree(join(PROJECT_ROOT, 'lambda'), (path) => {
    changed.add(path);
    hold(path);
    schedule();
  });
  const apiWatcher = watch(join(PROJECT_ROOT, 'lib', 'definitions'), (_, filename) => {
    if (filename?.toString() !== 'api.ts') return;
    apiChanged = true;
    schedule();
  });
  return {
    get files() {
      return files();
    },
    settled: (name) => (pending?.names.has(name) ? pending.done : Promise.resolve()),
    async close() {
      lambdaWatcher.close();
      apiWatcher.close();
      clearTimeout(timer);
      await running;
      pending?.resolve();
      await ctx?.dispose();
      await Promise.all(writes);
    },
  };
}

/**
 * Builds all bundles in one go; `keep` puts a successful build in the cache slot taken before it,
 * for the next run with the same options and inputs.
 */
async function runBuild(
  ctx: BuildContext,
  slot: CacheSlot,
): Promise<(CachedBuild & { keep(): Promise<void> }) | { errors: Message[] }> {
  let result;
  try {
    result = await ctx.rebuild();
  } catch (error) {
    const errors = (error as { errors?: Message[] }).errors;
    return { errors: errors?.length ? errors : [{ text: String(error) } as Message] };
  }
  const outputFiles = result.outputFiles!;
  const metafile = result.metafile!;
  return {
    outputs: new Map(outputFiles.map((file) => [resolve(file.path), file.contents])),
    inputs: new Map(
      Object.entries(metafile.outputs).map(([path, output]) => [
        resolve(PROJECT_ROOT, path),
        Object.keys(output.inputs).map((input) => resolve(PROJECT_ROOT, input)),
      ]),
    ),
    keep: () => writeCachedBuild(slot, { outputFiles, metafile }),
  };
}

/**
 * Writes the bundles whose output changed (each by rename, so that a sandbox starting meanwhile
 * reads the old file or the new one, never half of one).
 */
async function apply(built: CachedBuild, bundles: Map<FunctionName, Bundle>): Promise<Rebuilt> {
  const { outputs, inputs } = built;
  const changed: FunctionName[] = [];
  for (const [name, bundle] of bundles) {
    const code = outputs.get(bundle.file);
    if (!code) throw new Error(`esbuild wrote no ${bundle.file}`);
    // The linked source map goes with its bundle: a comment moved lines without changing the
    // minified code, so a changed map alone is a new build too.
    const map = outputs.get(`${bundle.file}.map`);
    const contents = map ? Buffer.concat([code, map]) : code;
    bundle.inputs = new Set(inputs.get(bundle.file));
    if (bundle.contents && Buffer.compare(bundle.contents, contents) === 0) continue;
    await mkdir(dirname(bundle.file), { recursive: true, mode: 0o700 });
    // The map first, then the bundle that names it, each by rename.
    if (map) await replaceFile(`${bundle.file}.map`, map);
    await replaceFile(bundle.file, code);
    bundle.contents = contents;
    changed.push(name);
  }
  return { changed };
}

/** Writes `file` whole by renaming a new one over it: a reader sees the old file or the new one. */
async function replaceFile(file: string, contents: Uint8Array): Promise<void> {
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, contents, { mode: 0o600 });
  await rename(temporary, file);
}

/** Whether `path` is one of `inputs` or a directory holding one (a folder renamed or removed). */
function includes(inputs: ReadonlySet<string>, path: string): boolean {
  if (inputs.has(path)) return true;
  const prefix = path + sep;
  for (const input of inputs) if (input.startsWith(prefix)) return true;
  return false;
}

/** An esbuild message as one line: `file:line:column: text`. */
function oneLine(message: Message): string {
  const at = message.location;
  return at ? `${at.file}:${at.line}:${at.column}: ${message.text}` : message.text;
}

/**
 * Reads `lib/definitions/api.ts` afresh (the module the runtime imported is cached): bundled by esbuild and
 * evaluated. Throws one line when it does not build or names a function that does not exist.
 */
export async function loadApi(): Promise<ApiDefinition> {
  let code: string;
  try {
    const result = await build({
      entryPoints: [join(PROJECT_ROOT, 'lib', 'definitions', 'api.ts')],
      absWorkingDir: PROJECT_ROOT,
      bundle: true,
      platform: 'node',
      format: 'cjs',
      write: false,
      logLevel: 'silent',
    });
    code = result.outputFiles[0]!.text;
  } catch (error) {
    const errors = (error as { errors?: Message[] }).errors;
    throw new Error(errors?.length ? oneLine(errors[0]!) : String(error), { cause: error });
  }
  const module = { exports: {} as { API?: ApiDefinition } };
  new Function('module', 'exports', 'require', code)(module, module.exports, require);
  const api = module.exports.API;
  if (!api || !Array.isArray(api.routes)) throw new Error('exports no API definition');
  const unknown = [...api.routes.map((r) => r.function), api.authorizer.function].find(
    (name) => !(name in FUNCTIONS),
  );
  if (unknown !== undefined) throw new Error(`names an unknown function ${unknown}`);
  return api;
}
