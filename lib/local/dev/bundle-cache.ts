/**
 * A local run's function bundles, kept from one run to the next: esbuild keeps no cache between
 * processes, and every `npm start` (and every test suite that starts one) would otherwise build
 * the same bundles again, seconds of CPU each time.
 *
 * An entry is keyed by everything the build is given: esbuild's version, the build options, the
 * path from the bundles to the project (the linked source maps name their sources by it), the
 * project's package.json, lock file and tsconfig.json, and the names of the files under `lambda/`
 * (a new file can change what an import resolves to), all read before the build. It holds the
 * outputs and the SHA-256 of every input the build read; it is used only while each of those
 * inputs is unchanged, and then gives the bytes esbuild would write. A build during which an
 * input changed is not kept (its bundle may predate the change). Each entry is one file, replaced
 * whole; the newest few are kept, readable by this user only, as the bundles are.
 */
import { version as esbuildVersion, type BuildOptions, type Metafile } from 'esbuild';
import { createHash, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
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

/** One build's place in the cache: taken before the build, so that what it read is what it keys. */
export interface CacheSlot {
  readonly file: string;
  /** When the slot was taken (ms since the epoch): an input changed since is not cached. */
  readonly takenAt: number;
  readonly outdir: string;
  /** esbuild's working directory, which the metafile's paths are relative to. */
  readonly cwd: string;
}

/** An entry's header: the inputs' hashes and where each output's bytes are. */
export interface EntryHeader {
  /** SHA-256 of each input, by path relative to the project. */
  readonly inputs: Record<string, string>;
  /** Each output (by path relative to `outdir`): its inputs, and its bytes' offset and length. */
  readonly outputs: Record<string, { inputs: string[]; at: number; bytes: number }>;
}

/** The slot of a build with `options` (whose `outdir` is set), in `dir`. */
export function cacheSlot(options: BuildOptions, dir = BUNDLE_CACHE_DIR): CacheSlot {
  const takenAt = Date.now();
  const { outdir, ...rest } = options;
  if (outdir === undefined) throw new Error('a cached build needs an outdir');
  const root = PROJECT_ROOT;
  const hash = createHash('sha256');
  const part = (value: string | Buffer) => hash.update(`${value.length}:`).update(value);
  part(esbuildVersion);
  part(JSON.stringify(rest));
  part(relative(resolve(root, outdir), root));
  for (const file of ['package.json', 'package-lock.json', 'tsconfig.json']) {
    part(readOptional(join(root, file)));
  }
  part(readdirSync(join(root, 'lambda'), { recursive: true }).map(String).sort().join('\n'));
  return {
    file: join(dir, `${hash.digest('hex').slice(0, 32)}.bundles`),
    takenAt,
    outdir: resolve(root, outdir),
    cwd: options.absWorkingDir ?? process.cwd(),
  };
}

/** The slot's build, if it has one and none of its inputs changed since. */
export async function readCachedBuild(slot: CacheSlot): Promise<CachedBuild | undefined> {
  let header: EntryHeader;
  let body: Buffer;
  try {
    ({ header, body } = parseEntry(await readFile(slot.file)));
  } catch {
    return undefined;
  }
  const unchanged = await Promise.all(
    Object.entries(header.inputs).map(async ([input, sha]) => {
      try {
        return sha256(await readFile(join(PROJECT_ROOT, input))) === sha;
      } catch {
        return false;
      }
    }),
  );
  if (!unchanged.every(Boolean)) return undefined;
  const outputs = new Map<string, Uint8Array>();
  const inputs = new Map<string, string[]>();
  for (const [output, { inputs: read, at, bytes }] of Object.entries(header.outputs)) {
    outputs.set(join(slot.outdir, output), body.subarray(at, at + bytes));
    inputs.set(
      join(slot.outdir, output),
      read.map((input) => join(PROJECT_ROOT, input)),
    );
  }
  // The most recently used entries are the ones kept.
  const now = new Date();
  await utimes(slot.file, now, now).catch(() => undefined);
  return { outputs, inputs };
}

/**
 * Keeps a finished build (`write: false`, with its metafile) in its slot, unless an input changed
 * since the slot was taken. Best effort: a cache that cannot be written costs the next run a
 * build, nothing else.
 */
export async function writeCachedBuild(
  slot: CacheSlot,
  build: {
    readonly outputFiles: readonly { path: string; contents: Uint8Array }[];
    readonly metafile: Metafile;
  },
): Promise<void> {
  const temporary = `${slot.file}.${randomUUID()}.tmp`;
  try {
    const inputs: Record<string, string> = {};
    const outputs: EntryHeader['outputs'] = {};
    const contents = new Map(build.outputFiles.map((file) => [resolve(file.path), file.contents]));
    const blobs: Uint8Array[] = [];
    let at = 0;
    for (const [path, output] of Object.entries(build.metafile.outputs)) {
      const read = Object.keys(output.inputs).map((input) => inProject(resolve(slot.cwd, input)));
      const bytes = contents.get(resolve(slot.cwd, path));
      if (!bytes) return;
      outputs[relative(slot.outdir, resolve(slot.cwd, path))] = {
        inputs: read,
        at,
        bytes: bytes.length,
      };
      blobs.push(bytes);
      at += bytes.length;
      for (const input of read) {
        if (inputs[input] !== undefined) continue;
        const file = join(PROJECT_ROOT, input);
        // Changed since the build began (with a second's margin for coarse file times): the
        // bundle may hold the old text, and the hash would be the new one's.
        if ((await stat(file)).mtimeMs >= slot.takenAt - 1_000) return;
        inputs[input] = sha256(await readFile(file));
      }
    }
    await mkdir(dirname(slot.file), { recursive: true, mode: 0o700 });
    await writeFile(temporary, entryBytes({ inputs, outputs }, blobs), { mode: 0o600 });
    // Whole or not at all: a reader sees the old entry or the new one.
    await rename(temporary, slot.file);
    await prune(dirname(slot.file));
  } catch {
    // best effort (see above)
  } finally {
    await rm(temporary, { force: true }).catch(() => undefined);
  }
}

/** An entry's bytes: the header's length (4 bytes, big-endian), the header, then the outputs'. */
export function entryBytes(header: EntryHeader, outputs: readonly Uint8Array[]): Buffer {
  const text = Buffer.from(JSON.stringify(header));
  const length = Buffer.alloc(4);
  length.writeUInt32BE(text.length);
  return Buffer.concat([length, text, ...outputs]);
}

/** An entry's header and the outputs' bytes after it (throws on an entry cut short). */
export function parseEntry(entry: Buffer): { header: EntryHeader; body: Buffer } {
  const length = entry.readUInt32BE(0);
  const header = JSON.parse(entry.toString('utf8', 4, 4 + length)) as EntryHeader;
  return { header, body: entry.subarray(4 + length) };
}

/** Removes all but the KEPT most recently used entries, and writes abandoned an hour ago. */
async function prune(dir: string): Promise<void> {
  const files = await readdir(dir);
  const used = await Promise.all(
    files.map(async (name) => ({ name, at: (await stat(join(dir, name))).mtimeMs })),
  );
  const abandoned = used.filter(({ name, at }) => name.endsWith('.tmp') && at < Date.now() - 3.6e6);
  const entries = used.filter(({ name }) => name.endsWith('.bundles')).sort((a, b) => b.at - a.at);
  for (const { name } of [...abandoned, ...entries.slice(KEPT)]) {
    await rm(join(dir, name), { force: true });
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
