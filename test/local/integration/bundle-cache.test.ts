/**
 * The local runs' bundle cache (lib/local/dev/bundle-cache.ts), on a real esbuild build of two
 * functions in a cache folder of its own: it gives back the bytes esbuild wrote, and nothing once
 * an input differs from what the build read, or for bundles placed where their source maps would
 * name the sources differently.
 */
import { build, type BuildOptions } from 'esbuild';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { allFunctionsBuildOptions } from '../../../lib/definitions/build';
import { readCachedBuild, writeCachedBuild } from '../../../lib/local/dev/bundle-cache';

const temp = mkdtempSync(join(tmpdir(), 'plant-store-bundle-cache-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

const NAMES = ['get-plant', 'delete-plant'] as const;
const cacheDir = join(temp, 'cache');
const options = (outdir: string): BuildOptions => ({
  ...allFunctionsBuildOptions(NAMES, outdir),
  write: false,
  logLevel: 'silent',
});

let built: Awaited<ReturnType<typeof build>>;
beforeAll(async () => {
  built = await build(options(join(temp, 'first', 'functions')));
  await writeCachedBuild(
    options(join(temp, 'first', 'functions')),
    { outputFiles: built.outputFiles!, metafile: built.metafile! },
    cacheDir,
  );
}, 120_000);

it("gives back esbuild's bytes, placed under another outdir of the same depth", async () => {
  const cached = await readCachedBuild(options(join(temp, 'other', 'functions')), cacheDir);
  expect(cached).toBeDefined();
  const fresh = await build(options(join(temp, 'other', 'functions')));
  expect(
    new Map(fresh.outputFiles!.map((file) => [file.path, Buffer.from(file.contents)])),
  ).toEqual(new Map([...cached!.outputs].map(([path, contents]) => [path, Buffer.from(contents)])));
  // Each bundle's inputs, as a watcher needs them: its entry point among them.
  const inputs = cached!.inputs.get(join(temp, 'other', 'functions', 'get-plant', 'index.mjs'));
  expect(inputs).toContain(join(__dirname, '../../../lambda/get-plant/index.ts'));
});

it('gives nothing for bundles at another depth (their maps name the sources another way)', async () => {
  expect(await readCachedBuild(options(join(temp, 'a', 'b', 'functions')), cacheDir)).toBe(
    undefined,
  );
});

it('gives nothing once one input the build read differs', async () => {
  const [entry] = readdirSync(cacheDir);
  const manifestFile = join(cacheDir, entry!, 'manifest.json');
  const manifest = JSON.parse(await readFile(manifestFile, 'utf8'));
  const [input] = Object.keys(manifest.inputs).filter((path) => path.startsWith('lambda/'));
  expect(await readCachedBuild(options(join(temp, 'other', 'functions')), cacheDir)).toBeDefined();
  // As if the file had been edited since: the hash the entry holds is no longer the file's.
  manifest.inputs[input!] = '0'.repeat(64);
  await writeFile(manifestFile, JSON.stringify(manifest));
  expect(await readCachedBuild(options(join(temp, 'other', 'functions')), cacheDir)).toBe(
    undefined,
  );
});
