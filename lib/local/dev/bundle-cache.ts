/**
 * A local run's function bundles, kept from one run to the next: esbuild keeps no cache between
 * processes, and every `npm start` (and every test suite that starts one) would otherwise build
 * the same bundles again, seconds of CPU each time.
 *
 * An entry is keyed by everything the build is given: esbuild's version, the build options, the
 * path from the bundles to the project (the linked source maps name their sources by it), the
 * project's package.json, lock file and tsconfig.json, and the names of the files under `lambda/`
 * (a new file can change what an import resolves to). It holds the outputs and the SHA-256 of
 * every input the build read; it is used only while each of those inputs is unchanged, and then
 * gives the bytes esbuild would write. The newest few entries are kept.
 */
import { version as esbuildVersion, type BuildOptions, type Metafile } from 'esbuild';
import { createHash, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, readFile, readdir, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { PROJECT_ROOT } from '../../definitions/bundling';

/** Where the entries are, beside the other tools' caches. */
export const BUNDLE_CACHE_DIR = join(PROJECT_ROOT, 'node_modules', '.cache', 'plant-store-bundles');

/** Entries kept: a few, so that switching branches back and forth still finds its bundles. */
const KEPT = 4;

/** A build, as the cache keeps it and gives it back. */
export interface CachedBuild {
  /** Each output's contents, by absolute path under the build's `outdir`. */
  readonly outputs: ReadonlyMap<string, Uint8Array>;
  /** Each output's inputs, as absolute paths (what a watcher waits on). */
  readonly inputs: ReadonlyMap<string, readonly string[]>;
}

interface Manifest {
  /** SHA-256 of each input, by path relative to the project. */
  readonly inputs: Record<string, string>;
  /** Each output's inputs (relative to the project), by path relative to `outdir`. */
  readonly outputs: Record<string, string[]>;
}

/** Where the entries are (tests use a folder of their own). @default BUNDLE_CACHE_DIR */
export type CacheDir = string;

/** The entry's name for a build with `options` (whose `outdir` is set). */
export function cacheKey(options: BuildOptions): string {
  const { outdir, ...rest } = options;
  const root = PROJECT_ROOT;
  if (outdir === undefined) throw new Error('a cached build needs an outdir');
  const hash = createHash('sha256');
  const part = (value: string | Buffer) => hash.update(`${value.length}:`).update(value);
  part(esbuildVersion);
  part(JSON.stringify(rest));
  part(relative(resolve(root, outdir), root));
  for (const file of ['package.json', 'package-lock.json', 'tsconfig.json']) {
    part(readOptional(join(root, file)));
  }
  const lambda = join(root, 'lambda');
  part(readdirSync(lambda, { recursive: true }).map(String).sort().join('\n'));
  return hash.digest('hex').slice(0, 32);
}

/** The cached build for `options`, if there is one and none of its inputs changed since. */
export async function readCachedBuild(
  options: BuildOptions,
  dir: CacheDir = BUNDLE_CACHE_DIR,
): Promise<CachedBuild | undefined> {
  const root = PROJECT_ROOT;
  const entry = join(dir, cacheKey(options));
  let manifest: Manifest;
  try {
    manifest = JSON.parse(await readFile(join(entry, 'manifest.json'), 'utf8')) as Manifest;
  } catch {
    return undefined;
  }
  const unchanged = await Promise.all(
    Object.entries(manifest.inputs).map(async ([input, sha]) => {
      try {
        return sha256(await readFile(join(root, input))) === sha;
      } catch {
        return false;
      }
    }),
  );
  if (!unchanged.every(Boolean)) return undefined;
  const outdir = resolve(root, options.outdir!);
  const outputs = new Map<string, Uint8Array>();
  const inputs = new Map<string, string[]>();
  try {
    for (const [output, read] of Object.entries(manifest.outputs)) {
      outputs.set(join(outdir, output), await readFile(join(entry, 'out', output)));
      inputs.set(
        join(outdir, output),
        read.map((input) => join(root, input)),
      );
    }
  } catch {
    return undefined;
  }
  // The most recently used entries are the ones kept.
  const now = new Date();
  await utimes(entry, now, now).catch(() => undefined);
  return { outputs, inputs };
}

/**
 * Keeps a finished build (`write: false`, with its metafile) for the next run with the same
 * `options`. Best effort: a cache that cannot be written costs the next run a build, nothing else.
 */
export async function writeCachedBuild(
  options: BuildOptions,
  build: {
    readonly outputFiles: readonly { path: string; contents: Uint8Array }[];
    readonly metafile: Metafile;
  },
  dir: CacheDir = BUNDLE_CACHE_DIR,
): Promise<void> {
  const root = PROJECT_ROOT;
  // The metafile's paths are relative to esbuild's working directory.
  const cwd = options.absWorkingDir ?? process.cwd();
  const outdir = resolve(root, options.outdir!);
  const entry = join(dir, cacheKey(options));
  const temporary = `${entry}.${randomUUID()}.tmp`;
  try {
    const inputs: Record<string, string> = {};
    const outputs: Record<string, string[]> = {};
    for (const [path, output] of Object.entries(build.metafile.outputs)) {
      const read = Object.keys(output.inputs).map((input) => inProject(resolve(cwd, input)));
      outputs[relative(outdir, resolve(cwd, path))] = read;
      for (const input of read) inputs[input] ??= sha256(await readFile(join(root, input)));
    }
    for (const file of build.outputFiles) {
      const path = join(temporary, 'out', relative(outdir, file.path));
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, file.contents);
    }
    await writeFile(join(temporary, 'manifest.json'), JSON.stringify({ inputs, outputs }));
    // Whole or not at all: readers see the old entry or the new one. Another run may have
    // written the same entry meanwhile (the same bytes); the first rename wins.
    await rm(entry, { recursive: true, force: true });
    await rename(temporary, entry);
    await prune(dir);
  } catch {
    // best effort (see above)
  } finally {
    await rm(temporary, { recursive: true, force: true }).catch(() => undefined);
  }
}

/** Removes all but the KEPT most recently used entries. */
async function prune(dir: string): Promise<void> {
  const entries = (await readdir(dir)).filter((name) => !name.endsWith('.tmp'));
  if (entries.length <= KEPT) return;
  const used = await Promise.all(
    entries.map(async (name) => ({ name, at: (await stat(join(dir, name))).mtimeMs })),
  );
  used.sort((a, b) => b.at - a.at);
  for (const { name } of used.slice(KEPT)) {
    await rm(join(dir, name), { recursive: true, force: true });
  }
}

/** An input's path relative to the project (a build reading outside it is not cached). */
function inProject(input: string): string {
  const path = relative(PROJECT_ROOT, input);
  if (path.startsWith(`..${sep}`)) throw new Error(`an input outside the project: ${input}`);
  return path;
}

function sha256(contents: Uint8Array): string {
  return createHash('sha256').update(contents).digest('hex');
}

function readOptional(file: string): Buffer {
  try {
    return readFileSync(file);
  } catch {
    return Buffer.alloc(0);
  }
}
