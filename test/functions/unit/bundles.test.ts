/**
 * What enters the function bundles, read from esbuild's metafile: no banned module (protocols,
 * event streams, HTTP/2, credential providers DynamoDB or Lambda never use) in any bundle, and
 * the aliases of `lib/definitions/bundling.ts` really replace what they name.
 */
import { build, type Metafile } from 'esbuild';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildFunctions, bundleOutput, type BuiltFunction } from '../../../lib/definitions/build';
import { BANNED_MODULES, ESBUILD_OPTIONS, PROJECT_ROOT } from '../../../lib/definitions/bundling';
import { FUNCTIONS, FUNCTION_NAMES } from '../../../lib/definitions/functions';

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
}, 60_000);
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
