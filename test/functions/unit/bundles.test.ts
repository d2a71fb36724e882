/**
 * What enters the function bundles, read from esbuild's metafile: no banned module (protocols,
 * event streams, HTTP/2, credential providers DynamoDB or Lambda never use) in any bundle, and
 * the aliases of `lib/definitions/bundling.ts` really replace what they name.
 */
import { build, type Metafile } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  buildFunctions,
  bundleOutput,
  functionBuildOptions,
  type BuiltFunction,
} from '../../../lib/definitions/build';
import { BANNED_MODULES, ESBUILD_OPTIONS, PROJECT_ROOT } from '../../../lib/definitions/bundling';
import { FUNCTIONS, FUNCTION_NAMES, tableEnvironment } from '../../../lib/definitions/functions';
import { lambdaNode } from '../../../lib/definitions/lambda-node';
import { localWebhookEnvironment } from '../../../lib/npm-start/in-process';
import { getDescription } from 'valibot';
import {
  NewPlant,
  PlantPatch,
  PlantReplacement,
  StoredPlant,
} from '../../../lambda/plants/schemas';

/** The bundle's inputs that contribute bytes, matched against the banned list. */
function bannedInputs(metafile: Metafile): string[] {
  const [, output] = bundleOutput(metafile);
  return Object.entries(output.inputs)
    .filter(
      ([path, { bytesInOutput }]) =>
        bytesInOutput > 0 && BANNED_MODULES.some((banned) => banned.test(`/${path}`)),
    )
    .map(([path]) => path);
}

let dir: string;
let built: BuiltFunction[];
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'plant-store-bundles-'));
  built = await buildFunctions(dir);
}, 300_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('builds every function of the registry', () => {
  expect(built.map((fn) => fn.name).sort()).toEqual([...FUNCTION_NAMES].sort());
});

it.each(FUNCTION_NAMES)('%s: no banned module in the bundle', (name) => {
  const fn = built.find((candidate) => candidate.name === name)!;
  expect(bannedInputs(fn.metafile)).toEqual([]);
});

it.each(FUNCTION_NAMES)('%s: node:process is the global object, not the built-in', (name) => {
  const fn = built.find((candidate) => candidate.name === name)!;
  const code = readFileSync(fn.file, 'utf8');
  expect(code).not.toMatch(/from\s*"node:process"/);
  expect(code).not.toMatch(/import\(\s*"node:process"\s*\)/);
});

it.each(FUNCTION_NAMES)('%s: imports no built-in as an ES module at cold start', (name) => {
  // Each is aliased to a stub that takes Node's module without the facade an ES import builds
  // (lib/definitions/bundling.ts): a new one fails here until it has its stub.
  const [, output] = bundleOutput(built.find((candidate) => candidate.name === name)!.metafile);
  const builtIns = output.imports.filter(
    ({ path, kind }) => kind === 'import-statement' && isBuiltin(path),
  );
  expect(builtIns.map(({ path }) => path)).toEqual([]);
});

it.each(FUNCTION_NAMES)('%s: node:module is not imported at cold start', (name) => {
  const fn = built.find((candidate) => candidate.name === name)!;
  const code = readFileSync(fn.file, 'utf8');
  expect(code).not.toMatch(/from\s*["'](?:node:)?module["']/);
});

it.each(FUNCTION_NAMES)('%s: importing the bundle opens neither stdout nor stderr', (name) => {
  // Powertools' logger and metrics each open a Console on both streams, which Node creates when
  // first read: built on first use, an import reads neither. The answer goes to fd 1 directly.
  const fn = built.find((candidate) => candidate.name === name)!;
  const script = `import { writeSync } from 'node:fs';
const read = [];
for (const stream of ['stdout', 'stderr']) {
  const { get } = Object.getOwnPropertyDescriptor(process, stream);
  Object.defineProperty(process, stream, {
    configurable: true,
    get() { read.push(stream); return get.call(process); },
  });
}
await import(${JSON.stringify(pathToFileURL(fn.file).href)});
writeSync(1, JSON.stringify(read));`;
  const env = {
    PATH: process.env.PATH ?? '',
    AWS_REGION: 'eu-west-1',
    ...tableEnvironment(name, (_key, table) => table.localName),
    ...localWebhookEnvironment(name, 'http://127.0.0.1:9'),
  };
  const out = execFileSync(lambdaNode().path, ['--input-type=module', '-e', script], { env });
  expect(JSON.parse(out.toString())).toEqual([]);
});

it("the banner's require gives a built-in and refuses anything else, naming it", async () => {
  // CommonJS that requires a built-in at load and an external package when called.
  const entry = join(dir, 'requires.cjs');
  writeFileSync(
    entry,
    "exports.sep = require('node:path').sep; exports.other = () => require('left-pad');",
  );
  await build({
    ...ESBUILD_OPTIONS,
    mainFields: [...ESBUILD_OPTIONS.mainFields],
    external: ['left-pad'],
    alias: {},
    entryPoints: [entry],
    outfile: join(dir, 'requires.mjs'),
    sourcemap: false,
    absWorkingDir: PROJECT_ROOT,
    logLevel: 'error',
  });
  const url = pathToFileURL(join(dir, 'requires.mjs')).href;
  const script = `const { default: m } = await import(${JSON.stringify(url)});
let refused; try { m.other(); } catch (error) { refused = error.message; }
process.stdout.write(JSON.stringify({ sep: m.sep, refused }));`;
  const out = execFileSync(lambdaNode().path, ['--input-type=module', '-e', script]).toString();
  expect(JSON.parse(out)).toEqual({ sep, refused: 'not a built-in module: left-pad' });
});

it('the guard sees a banned module: without the aliases, event streams enter the bundle', async () => {
  const name = FUNCTION_NAMES[0]!;
  const result = await build({
    ...ESBUILD_OPTIONS,
    mainFields: [...ESBUILD_OPTIONS.mainFields],
    external: [...ESBUILD_OPTIONS.external],
    alias: {},
    entryPoints: [join(PROJECT_ROOT, FUNCTIONS[name].entry)],
    outfile: join(dir, 'unaliased.mjs'),
    absWorkingDir: PROJECT_ROOT,
    metafile: true,
    write: false,
    logLevel: 'error',
  });
  expect(bannedInputs(result.metafile).some((path) => path.includes('event-streams'))).toBe(true);
});

it('reading a name a stub does not export fails the build, through a namespace too', async () => {
  // The stub of node:fs exports the names the bundles use; `writeFileSync` is not one of them.
  const stubbed = (contents: string) =>
    build({
      ...functionBuildOptions(FUNCTION_NAMES[0]!, join(dir, 'stubbed')),
      entryPoints: undefined,
      outdir: undefined,
      outfile: join(dir, 'stubbed', 'index.mjs'),
      stdin: { contents, resolveDir: PROJECT_ROOT, sourcefile: 'stubbed.ts', loader: 'ts' },
      write: false,
      logLevel: 'silent',
    });
  await expect(stubbed("export { readFileSync } from 'node:fs';")).resolves.toBeDefined();
  await expect(
    stubbed("import * as fs from 'node:fs';\nexport const write = () => fs.writeFileSync;"),
  ).rejects.toThrow(/"writeFileSync" will always be undefined/);
  await expect(
    stubbed("import { writeFileSync } from 'node:fs';\nexport const write = () => writeFileSync;"),
  ).rejects.toThrow(/No matching export .* for import "writeFileSync"/);
});

/** A schema's description as a minified bundle spells it: its first words, without quotes. */
const described = (schema: Parameters<typeof getDescription>[0]) =>
  (getDescription(schema) ?? '').slice(0, 30);

it.each([
  ['create-plant', [NewPlant], [PlantPatch, PlantReplacement]],
  ['update-plant', [PlantReplacement], [NewPlant, PlantPatch]],
  ['patch-plant', [PlantPatch], [NewPlant, PlantReplacement]],
  ['get-plant', [StoredPlant], [NewPlant, PlantPatch, PlantReplacement]],
] as const)('%s carries the schemas it validates with, not the others', (name, used, unused) => {
  const code = readFileSync(built.find((fn) => fn.name === name)!.file, 'utf8');
  for (const schema of used) expect(code).toContain(described(schema));
  for (const schema of unused) expect(code).not.toContain(described(schema));
});

/** The module under lambda/plants/store/ that holds each method of the plants table. */
const STORE_MODULES: Record<string, string> = {
  putNew: 'put-new.ts',
  get: 'get.ts',
  update: 'change.ts',
  delete: 'change.ts',
  scan: 'list.ts',
  queryByTag: 'list.ts',
  storedImages: 'images.ts',
};

it.each(FUNCTION_NAMES)('%s carries the plants methods its grants name, not the others', (name) => {
  const [, output] = bundleOutput(built.find((fn) => fn.name === name)!.metafile);
  const carried = Object.entries(output.inputs)
    .filter(([path, { bytesInOutput }]) => bytesInOutput > 0 && path.includes('plants/store/'))
    .map(([path]) => path.split('/').pop());
  const methods: readonly string[] = FUNCTIONS[name].tables?.plants ?? [];
  const granted = methods.map((method) => STORE_MODULES[method]);
  expect(new Set(carried)).toEqual(new Set(methods.length > 0 ? [...granted, 'calls.ts'] : []));
});
