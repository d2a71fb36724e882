/**
 * Readable errors, deployed and local: a function built with the stack's options (minified,
 * without esbuild's `keepNames`) keeps its error classes' names and carries a linked map (without
 * the sources' text) that names its TypeScript under `lambda/` and the names minifying took. Run
 * on Lambda's Node with the stack's `NODE_OPTIONS` (none), an error's log line says
 * `ServiceUnavailable` and its stack names `lambda/…/*.ts` lines and functions, the function
 * mapping it itself (lambda/observability/stack-map.ts). Without the map beside it, or
 * with the map gone after the import (it is read when the error is logged, not at cold start),
 * the same bundle's stack points into `index.mjs`. The debugger's build (`npm start --
 * --inspect`) has an inline map with the sources.
 */
import { build } from 'esbuild';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import {
  buildFunctions,
  functionBuildOptions,
  type BuiltFunction,
} from '../../../lib/definitions/build';
import { FUNCTION_NODE_OPTIONS, PROJECT_ROOT } from '../../../lib/definitions/bundling';
import { FUNCTIONS, FUNCTION_NAMES, tableEnvironment } from '../../../lib/definitions/functions';
import { lambdaNode } from '../../../lib/definitions/lambda-node';
import { freePort } from '../../../lib/local/process/free-port';

const run = promisify(execFile);
let dir: string;
let built: BuiltFunction[];
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'plant-store-maps-'));
  built = await buildFunctions(dir);
}, 300_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface SourceMap {
  sources: string[];
  sourcesContent?: unknown;
}
const mapOf = (file: string) => JSON.parse(readFileSync(`${file}.map`, 'utf8')) as SourceMap;

it.each(FUNCTION_NAMES)(
  '%s: a linked map without sources names the entry point under lambda/',
  (name) => {
    const fn = built.find((candidate) => candidate.name === name)!;
    expect(readFileSync(fn.file, 'utf8')).toMatch(/\n\/\/# sourceMappingURL=index\.mjs\.map\n?$/);
    const map = mapOf(fn.file);
    expect(map.sourcesContent).toBeUndefined();
    const sources = map.sources.map((source) => resolve(dirname(fn.file), source));
    expect(sources).toContain(join(PROJECT_ROOT, FUNCTIONS[name].entry));
  },
);

it('every error class of the functions keeps its name through the minified build', async () => {
  // Every module under lambda/ that exports a class extending another, built with the functions'
  // options (no `keepNames`): an error class that took its name from its minified identifier
  // would say `Mr` here.
  const modules = readdirSync(join(PROJECT_ROOT, 'lambda'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
    .filter((file) =>
      /^export class \w+ extends \w+/m.test(
        readFileSync(join(PROJECT_ROOT, 'lambda', file), 'utf8'),
      ),
    )
    .map((file) => `./lambda/${file.replace(/\\/g, '/').replace(/\.ts$/, '')}`);
  const contents = [
    ...modules.map((module, i) => `import * as m${i} from '${module}';`),
    `export const names = Object.entries({ ${modules.map((_, i) => `...m${i}`).join(', ')} })`,
    '  .filter(([, value]) => typeof value === "function" && value.prototype instanceof Error)',
    "  .map(([name, Class]) => [name, new Class('a', 'b', {}).name]);",
  ].join('\n');
  const options = functionBuildOptions(FUNCTION_NAMES[0]!, join(dir, 'names'));
  const result = await build({
    ...options,
    entryPoints: undefined,
    outdir: undefined,
    outfile: join(dir, 'names', 'index.mjs'),
    stdin: { contents, resolveDir: PROJECT_ROOT, sourcefile: 'names.js', loader: 'js' },
  });
  expect(result.errors).toEqual([]);
  const url = pathToFileURL(join(dir, 'names', 'index.mjs')).href;
  const { stdout } = await run(lambdaNode().path, [
    '--input-type=module',
    '-e',
    `console.log(JSON.stringify((await import(${JSON.stringify(url)})).names));`,
  ]);
  const names = JSON.parse(stdout) as [string, string][];
  expect(names.map(([exported]) => exported)).toEqual(
    expect.arrayContaining(['HttpError', 'ServiceUnavailable', 'JsonSyntaxError', 'OurFailure']),
  );
  for (const [exported, name] of names) expect(name).toBe(exported);
});

it('the map gives back the names minifying took, and never a name the function does not have', async () => {
  // Each frame's function is found a different way: declared; an arrow called by its own name
  // (it starts with its parameter, whose name Node's first rule would give it); an arrow called
  // through a parameter (which Node's fallback would give the parameter's name: it keeps its
  // minified one); constructed.
  const contents = [
    "import { mapStackTraces } from './lambda/observability/stack-map';",
    'mapStackTraces();',
    'function throwFromDeclared(depth: number): never {',
    '  throw new Error(`at ${depth}`);',
    '}',
    'const arrowWithParameter = (renamedParameter: number) => throwFromDeclared(renamedParameter + 1);',
    'const calledBack = (count: number) => arrowWithParameter(count);',
    'const callingBack = (callback: (count: number) => void, count: number) => callback(count);',
    'class Thrower {',
    '  constructor(count: number) {',
    '    callingBack(calledBack, count);',
    '  }',
    '}',
    'async function awaiting(count: number): Promise<Thrower> {',
    '  await null;',
    '  return new Thrower(count);',
    '}',
    'export async function stack(): Promise<string> {',
    '  try {',
    '    await awaiting(1);',
    '  } catch (error) {',
    "    return (error as Error).stack ?? '';",
    '  }',
    "  return '';",
    '}',
  ].join('\n');
  const file = join(dir, 'frames', 'index.mjs');
  await build({
    ...functionBuildOptions(FUNCTION_NAMES[0]!, join(dir, 'frames')),
    entryPoints: undefined,
    outdir: undefined,
    outfile: file,
    stdin: { contents, resolveDir: PROJECT_ROOT, sourcefile: 'frames.ts', loader: 'ts' },
  });
  const { stdout } = await run(lambdaNode().path, [
    '--input-type=module',
    '-e',
    `console.log(await (await import(${JSON.stringify(pathToFileURL(file).href)})).stack());`,
  ]);
  const frames = stdout
    .split('\n')
    .slice(1, 7)
    .map((frame) => frame.replace(/ \(.*$/, ''));
  expect(frames).toEqual([
    '    at throwFromDeclared',
    '    at arrowWithParameter',
    expect.stringMatching(/^ {4}at [\w$]{1,3}$/),
    '    at callingBack',
    '    at new Thrower',
    '    at awaiting',
  ]);
  expect(stdout).toMatch(/\n {4}at throwFromDeclared \(.*frames\.ts:4:\d+\)/);
});

describe('an error logged by create-plant on Lambda Node, the store unreachable', () => {
  /**
   * Invokes a copy of create-plant's bundle once in a fresh process, its map beside it or not,
   * or removed between the import and the call; returns its ERROR log line.
   */
  async function failedCreate(
    map: 'beside' | 'absent' | 'removed after import',
    extraEnv: Record<string, string> = {},
  ) {
    const fn = built.find((candidate) => candidate.name === 'create-plant')!;
    const copy = join(mkdtempSync(join(dir, 'copy-')), 'index.mjs');
    copyFileSync(fn.file, copy);
    if (map !== 'absent') copyFileSync(`${fn.file}.map`, `${copy}.map`);
    const closed = await freePort(); // nothing listens: every call is refused
    const caller = [
      `const { handler } = await import(${JSON.stringify(pathToFileURL(copy).href)});`,
      `const event = ${readFileSync(join(PROJECT_ROOT, 'events', 'create-plant.json'), 'utf8')};`,
      ...(map === 'removed after import'
        ? [`(await import('node:fs')).rmSync(${JSON.stringify(`${copy}.map`)});`]
        : []),
      "const answer = await handler(event, { awsRequestId: 'maps' });",
      'if (answer.statusCode !== 503) throw new Error(JSON.stringify(answer));',
    ].join('\n');
    const { stdout, stderr } = await run(
      lambdaNode().path,
      [...FUNCTION_NODE_OPTIONS, '--input-type=module', '-e', caller],
      {
        env: {
          PATH: process.env.PATH ?? '',
          ...tableEnvironment('create-plant', (_, table) => table.localName),
          AWS_ENDPOINT_URL_DYNAMODB: `http://127.0.0.1:${closed}`,
          AWS_REGION: 'us-east-1',
          AWS_ACCESS_KEY_ID: 'local',
          AWS_SECRET_ACCESS_KEY: 'local',
          AWS_MAX_ATTEMPTS: '1',
          ...extraEnv,
        },
      },
    );
    const line = `${stdout}\n${stderr}`
      .split('\n')
      .filter((text) => text.startsWith('{'))
      .map((text) => JSON.parse(text) as { level?: string; error?: Record<string, string> })
      .find((entry) => entry.level === 'ERROR');
    expect(line?.error).toBeDefined();
    return { error: line!.error!, stderr };
  }

  it("with the stack's NODE_OPTIONS and its map: the class's name, a stack of lambda/ .ts lines", async () => {
    const { error } = await failedCreate('beside');
    expect(error.name).toBe('ServiceUnavailable');
    expect(error.stack).toMatch(/^ServiceUnavailable: /);
    expect(error.stack).toMatch(/\n {4}at .*lambda\/plants\/store\/put-new\.ts:\d+:\d+/);
    expect(error.stack).not.toMatch(/index\.mjs:\d+/);
    // The names minifying took, from the map: a function's, and an async one's two frames up.
    expect(error.stack).toMatch(/\n {4}at storeError \(.*lambda\/plants\/store\/calls\.ts:/);
    expect(error.stack).toMatch(
      /\n {4}at async createPlant \(.*lambda\/create-plant\/create-plant\.ts:/,
    );
  }, 300_000);

  it("the SDK's own warnings reach stderr, though its default logger's class name is minified", async () => {
    // The SDK warns about an app id over 50 characters with console.warn only for a logger it
    // knows by its class's name (NoOpLogger); lambda/aws/sdk-client.ts says it the same way.
    const { stderr } = await failedCreate('beside', { AWS_SDK_UA_APP_ID: 'a'.repeat(51) });
    expect(stderr).toContain('userAgentAppId exceeds the maximum length of 50 characters');
  }, 30_000);

  it.each(['absent', 'removed after import'] as const)(
    'the map %s: the same name, but the stack points into the bundle',
    async (map) => {
      const { error } = await failedCreate(map);
      expect(error.name).toBe('ServiceUnavailable');
      expect(error.stack).toMatch(/index\.mjs:\d+:\d+/);
      expect(error.stack).not.toMatch(/plants\/table\.ts/);
    },
    30_000,
  );
});

it('a function built for the debugger carries an inline map of its .ts sources', async () => {
  const name = FUNCTION_NAMES[0]!;
  const outdir = join(dir, 'inspect');
  const result = await build({
    ...functionBuildOptions(name, outdir, { sourceMaps: true }),
    write: false,
  });
  const [bundle, ...others] = result.outputFiles.map((file) => file.text);
  expect(others).toHaveLength(0);
  const url = /\/\/# sourceMappingURL=data:application\/json;base64,(\S+)\s*$/.exec(bundle!);
  expect(url).not.toBeNull();
  const map = JSON.parse(Buffer.from(url![1]!, 'base64').toString('utf8')) as {
    sources: string[];
    sourcesContent: string[];
  };
  const sources = map.sources.map((source) => join(outdir, name, source));
  expect(sources).toContain(join(PROJECT_ROOT, FUNCTIONS[name].entry));
  expect(map.sourcesContent.length).toBe(map.sources.length);
});
