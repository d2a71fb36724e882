/**
 * The function bundles of a local run, built with the stack's options (`functionBuildOptions`)
 * through esbuild's incremental contexts. In watch mode a change under `lambda/` rebuilds only
 * the bundles that include the changed file, and a change to `lib/api.ts` is reported so that
 * the runtime can restart its gateway. A failed build is printed and changes nothing.
 */
import { build, context, formatMessages, type BuildContext, type Message } from 'esbuild';
import { watch, type FSWatcher } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { functionBuildOptions } from '../build';
import { PROJECT_ROOT } from '../bundling';
import type { ApiDefinition } from '../api';
import { FUNCTIONS, type FunctionName } from '../functions';

/** What the runtime does with builds and changes. */
export interface BundlesOptions {
  /** Where the bundles go (`<outdir>/<name>/index.mjs`). */
  readonly outdir: string;
  readonly names: readonly FunctionName[];
  /** Keep watching after the first build. */
  readonly watch: boolean;
  readonly log: (line: string) => void;
  /** A bundle was rebuilt with a different output. */
  readonly onRebuilt: (name: FunctionName, file: string) => Promise<void>;
  /** `lib/api.ts` changed. */
  readonly onApiChanged: () => Promise<void>;
}

/** The built bundles, kept up to date while watching. */
export interface Bundles {
  /** Absolute path of each function's bundle. */
  readonly files: ReadonlyMap<FunctionName, string>;
  /** Stops watching and disposes of the contexts. */
  close(): Promise<void>;
}

interface Entry {
  readonly context: BuildContext;
  file: string;
  contents: Uint8Array | undefined;
  inputs: Set<string>;
}

/** Builds every bundle once and, with `watch`, keeps rebuilding them on change. */
export async function buildBundles(options: BundlesOptions): Promise<Bundles> {
  const entries = new Map<FunctionName, Entry>();
  const disposeAll = () => Promise.all([...entries.values()].map((e) => e.context.dispose()));
  try {
    await Promise.all(
      options.names.map(async (name) => {
        const entry: Entry = {
          context: await context({
            ...functionBuildOptions(name, options.outdir),
            write: false,
            logLevel: 'silent',
          }),
          file: '',
          contents: undefined,
          inputs: new Set(),
        };
        entries.set(name, entry);
        const { errors } = await rebuild(entry);
        if (errors) throw new Error(`building ${name} failed: ${oneLine(errors[0]!)}`);
      }),
    );
  } catch (error) {
    await disposeAll();
    throw error;
  }
  const files = () => new Map([...entries].map(([name, entry]) => [name, entry.file]));
  if (!options.watch) {
    await disposeAll();
    return { files: files(), close: async () => undefined };
  }

  const changed = new Set<string>();
  let apiChanged = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const schedule = () => {
    clearTimeout(timer);
    // Editors write a file in more than one step; one short pause gathers them.
    timer = setTimeout(() => (running = running.then(flush)), 15);
  };
  const flush = async () => {
    const paths = [...changed];
    changed.clear();
    if (apiChanged) {
      apiChanged = false;
      await options.onApiChanged();
    }
    const affected = [...entries].filter(([, entry]) => paths.some((p) => entry.inputs.has(p)));
    await Promise.all(
      affected.map(async ([name, entry]) => {
        const started = performance.now();
        const { errors, changed } = await rebuild(entry);
        if (errors) {
          const text = await formatMessages(errors, { kind: 'error', color: false });
          options.log(
            `[watch] ${name}: the build failed; the previous build keeps serving\n${text.join('').trimEnd()}`,
          );
          return;
        }
        if (!changed) return; // same output (a comment, say): nothing to swap
        const ms = (performance.now() - started).toFixed(0);
        options.log(`[watch] ${name}: rebuilt in ${ms} ms; new sandboxes run the new code`);
        await options.onRebuilt(name, entry.file);
      }),
    );
  };

  const lambdaDir = join(PROJECT_ROOT, 'lambda');
  const watchers: FSWatcher[] = [
    watch(lambdaDir, { recursive: true }, (_, filename) => {
      if (!filename) return;
      changed.add(resolve(lambdaDir, filename.toString()));
      schedule();
    }),
    // The directory, not the file: editors that save by renaming replace the file's inode.
    watch(join(PROJECT_ROOT, 'lib'), (_, filename) => {
      if (filename?.toString() !== 'api.ts') return;
      apiChanged = true;
      schedule();
    }),
  ];
  return {
    get files() {
      return files();
    },
    async close() {
      for (const watcher of watchers) watcher.close();
      clearTimeout(timer);
      await running;
      await disposeAll();
    },
  };
}

/**
 * Rebuilds one bundle and writes it if its output changed (by rename, so that a sandbox starting
 * meanwhile reads the old file or the new one, never half of one).
 */
async function rebuild(entry: Entry): Promise<{ errors?: Message[]; changed: boolean }> {
  let result;
  try {
    result = await entry.context.rebuild();
  } catch (error) {
    const errors = (error as { errors?: Message[] }).errors;
    return {
      errors: errors?.length ? errors : [{ text: String(error) } as Message],
      changed: false,
    };
  }
  entry.inputs = new Set(Object.keys(result.metafile!.inputs).map((p) => resolve(PROJECT_ROOT, p)));
  const output = result.outputFiles!.find((file) => file.path.endsWith('.mjs'))!;
  if (entry.contents && Buffer.compare(entry.contents, output.contents) === 0) {
    return { changed: false };
  }
  await mkdir(dirname(output.path), { recursive: true });
  const temporary = `${output.path}.${process.pid}.tmp`;
  await writeFile(temporary, output.contents);
  await rename(temporary, output.path);
  entry.file = output.path;
  entry.contents = output.contents;
  return { changed: true };
}

/** An esbuild message as one line: `file:line:column: text`. */
function oneLine(message: Message): string {
  const at = message.location;
  return at ? `${at.file}:${at.line}:${at.column}: ${message.text}` : message.text;
}

/**
 * Reads `lib/api.ts` afresh (the module the runtime imported is cached): bundled by esbuild and
 * evaluated. Throws one line when it does not build or names a function that does not exist.
 */
export async function loadApi(): Promise<ApiDefinition> {
  let code: string;
  try {
    const result = await build({
      entryPoints: [join(PROJECT_ROOT, 'lib', 'api.ts')],
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
