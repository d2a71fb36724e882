/**
 * The local runs' bundle cache (lib/local/dev/bundle-cache.ts), on a real esbuild build of two
 * functions in a cache folder of its own: it gives back the bytes esbuild wrote, and nothing once
 * an input differs from what the build read, or for bundles placed where their source maps would
 * name the sources differently; a build during which an input changed is not kept.
 */
import { build, type BuildOptions } from 'esbuild';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { allFunctionsBuildOptions } from '../../../lib/definitions/build';
import {
  cacheSlot,
  entryBytes,
  parseEntry,
  readCachedBuild,
  writeCachedBuild,
  type CacheSlot,
} from '../../../lib/local/dev/bundle-cache';

const temp = mkdtempSync(join(tmpdir(), 'plant-store-bundle-cache-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

const NAMES = ['get-plant', 'delete-plant'] as const;
const cacheDir = join(temp, 'cache');
const options = (outdir: string): BuildOptions => ({
  ...allFunctionsBuildOptions(NAMES, outdir),
  write: false,
  logLevel: 'silent',
});
const slot = (outdir: string) => cacheSlot(options(outdir), cacheDir);
const first = join(temp, 'first', 'functions');

/** Builds into `outdir`'s slot (or the one given) and keeps the build there. */
async function buildAndKeep(outdir: string, taken: CacheSlot = slot(outdir)) {
  const built = await build(options(outdir));
  await writeCachedBuild(taken, { outputFiles: built.outputFiles!, metafile: built.metafile! });
  return built;
}

beforeAll(() => buildAndKeep(first), 120_000);

it("gives back esbuild's bytes, placed under another outdir of the same depth", async () => {
  const other = join(temp, 'other', 'functions');
  const cached = await readCachedBuild(slot(other));
  expect(cached).toBeDefined();
  const fresh = await build(options(other));
  expect(
    new Map(fresh.outputFiles!.map((file) => [file.path, Buffer.from(file.contents)])),
  ).toEqual(new Map([...cached!.outputs].map(([path, contents]) => [path, Buffer.from(contents)])));
  // Each bundle's inputs, as a watcher needs them: its entry point among them.
  const inputs = cached!.inputs.get(join(other, 'get-plant', 'index.mjs'));
  expect(inputs).toContain(join(__dirname, '../../../lambda/get-plant/index.ts'));
});

it('gives nothing for bundles at another depth (their maps name the sources another way)', async () => {
  expect(await readCachedBuild(slot(join(temp, 'a', 'b', 'functions')))).toBe(undefined);
});

it('keeps nothing of a build during which an input changed', async () => {
  const outdir = join(temp, 'changed', 'x', 'functions');
  // As if every input had been saved after the slot was taken.
  await buildAndKeep(outdir, { ...slot(outdir), takenAt: 0 });
  expect(existsSync(slot(outdir).file)).toBe(false);
  await buildAndKeep(outdir);
  expect(statSync(slot(outdir).file).mode & 0o777).toBe(0o600);
});

it('gives nothing once one input the build read differs', async () => {
  const { file } = slot(first);
  expect(await readCachedBuild(slot(first))).toBeDefined();
  // As if a file had been edited since: the hash the entry holds is no longer the file's.
  const { header, body } = parseEntry(readFileSync(file));
  const [input] = Object.keys(header.inputs).filter((path) => path.startsWith('lambda/'));
  header.inputs[input!] = '0'.repeat(64);
  writeFileSync(file, entryBytes(header, [body]));
  expect(await readCachedBuild(slot(first))).toBe(undefined);
});
