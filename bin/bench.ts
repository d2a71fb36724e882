/**
 * `npm run bench`: bundle size and a cold-start proxy for each function, built exactly as the
 * stack builds them, plus what each bundling choice buys. Usage: npm run bench [-- --runs N]
 *
 * Cold-start proxy: a fresh Node process that imports the bundle (module scope included: the
 * SDK client is built there) against a fresh process importing a bare handler, run alternately;
 * the figure is the median of the per-pair ratios.
 */
import { build, type BuildOptions, type Metafile } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { formatObservabilityCost, measureObservabilityCost } from '../lib/bench/observability-cost';
import { buildFunctions } from '../lib/build';
import { benchLocalRuntime, median } from '../lib/local/bench-local';
import { benchWatchReload } from '../lib/bench/watch-reload';
import { ESBUILD_OPTIONS, PROJECT_ROOT } from '../lib/bundling';
import { FUNCTIONS, type FunctionName } from '../lib/functions';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '40' },
    requests: { type: 'string', default: '300' },
  },
});
const RUNS = Number(values.runs);
const out = mkdtempSync(join(tmpdir(), 'plant-store-bench-'));
const ENV = {
  PATH: process.env.PATH ?? '',
  AWS_REGION: 'eu-west-1',
  AWS_ACCESS_KEY_ID: 'bench',
  AWS_SECRET_ACCESS_KEY: 'bench',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  PLANTS_TABLE_NAME: 'plants',
  TOKENS_TABLE_NAME: 'tokens',
};

/** Milliseconds for a fresh `node` to import `file` and exit. */
function coldImport(file: string): number {
  const started = process.hrtime.bigint();
  const result = spawnSync(
    process.execPath,
    ['--input-type=module', '-e', `await import(${JSON.stringify(file)})`],
    {
      env: ENV,
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  if (result.status !== 0) throw new Error(`importing ${file} failed: ${result.stderr.toString()}`);
  return Number(process.hrtime.bigint() - started) / 1e6;
}

/** Median bundle/bare ratio over alternating runs, and the two medians in ms. */
function coldRatio(file: string, bare: string, runs = RUNS) {
  coldImport(file);
  coldImport(bare);
  const ratios: number[] = [];
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t1 = coldImport(file);
    const t0 = coldImport(bare);
    a.push(t1);
    b.push(t0);
    ratios.push(t1 / t0);
  }
  return { ratio: median(ratios), bundleMs: median(a), bareMs: median(b) };
}

function largestInputs(metafile: Metafile, count = 6): string {
  const output = Object.values(metafile.outputs)[0]!;
  const byPackage = new Map<string, number>();
  for (const [path, { bytesInOutput }] of Object.entries(output.inputs)) {
    const name = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1] ?? 'project';
    byPackage.set(name, (byPackage.get(name) ?? 0) + bytesInOutput);
  }
  return [...byPackage]
    .sort((x, y) => y[1] - x[1])
    .slice(0, count)
    .map(([name, bytes]) => `${name} ${(bytes / 1024).toFixed(1)} KiB`)
    .join(', ');
}

async function main(): Promise<void> {
  const bare = join(out, 'bare.mjs');
  writeFileSync(bare, 'export const handler = async () => ({ statusCode: 200 });\n');
  console.log(`node ${process.version}; ${RUNS} alternating pairs per figure\n`);
  await benchLocalRuntime(Number(values.requests));

  // --- Watch mode (lib/bench/watch-reload.ts): save to new answer, on a temp copy. ---
  const saves = await benchWatchReload();
  const list = saves.map((ms) => ms.toFixed(0)).join(', ');
  console.log(`Watch mode: save to new answer ${list} ms; median ${median(saves).toFixed(0)} ms\n`);

  console.log('Bundles as the stack builds them:');
  for (const fn of await buildFunctions(join(out, 'stack'))) {
    const { ratio, bundleMs, bareMs } = coldRatio(fn.file, bare);
    console.log(
      `  ${fn.name}: ${(fn.bytes / 1024).toFixed(1)} KiB; cold import ${bundleMs.toFixed(1)} ms vs bare ${bareMs.toFixed(1)} ms: ratio ${ratio.toFixed(3)}`,
    );
    console.log(`    largest inputs: ${largestInputs(fn.metafile)}`);
  }

  const name: FunctionName = 'create-plant';
  const base: BuildOptions = {
    bundle: true,
    platform: 'node',
    target: ESBUILD_OPTIONS.target,
    entryPoints: [join(PROJECT_ROOT, FUNCTIONS[name].entry)],
    absWorkingDir: PROJECT_ROOT,
    metafile: true,
    logLevel: 'error',
  };
  const esm: BuildOptions = {
    format: 'esm',
    mainFields: [...ESBUILD_OPTIONS.mainFields],
    banner: { ...ESBUILD_OPTIONS.banner },
  };
  const variants: [string, BuildOptions][] = [
    ['CommonJS, not minified, every provider (esbuild defaults)', { format: 'cjs' }],
    ['+ ESM (module entry points)', esm],
    ['+ minified', { ...esm, minify: true }],
    [
      '+ unused credential providers left out (= the stack)',
      { ...esm, minify: true, external: [...ESBUILD_OPTIONS.external] },
    ],
  ];
  console.log(`\nWhat each choice buys (${name}):`);
  for (const [index, [label, options]] of variants.entries()) {
    const file = join(out, `variant-${index}.${options.format === 'cjs' ? 'cjs' : 'mjs'}`);
    await measureVariant(label, { ...base, ...options, outfile: file }, bare);
  }
  // The same choices, with the plain client and util-dynamodb's marshall instead of lib-dynamodb.
  const stack = { ...base, ...variants[variants.length - 1]![1] };
  await measureVariant(
    'client-dynamodb + util-dynamodb instead of lib-dynamodb (an SDK-only sketch)',
    {
      ...stack,
      entryPoints: undefined,
      stdin: {
        contents: [
          "import { DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';",
          "import { marshall } from '@aws-sdk/util-dynamodb';",
          'const client = new DynamoDBClient({});',
          "export const handler = async (e) => client.send(new PutItemCommand({ TableName: 'plants', Item: marshall(e) }));",
        ].join('\n'),
        resolveDir: PROJECT_ROOT,
        loader: 'js',
      },
      outfile: join(out, 'variant-util.mjs'),
    },
    bare,
  );
}

// Observability: what Powertools adds to each bundle's cold import (lib/bench/observability-cost.ts).
async function observabilitySection(): Promise<void> {
  const costs = await measureObservabilityCost({ runs: RUNS, outdir: join(out, 'observability') });
  console.log(`\n${formatObservabilityCost(costs, RUNS)}`);
}

async function measureVariant(label: string, options: BuildOptions, bare: string): Promise<void> {
  const result = await build(options);
  const bytes = Object.values(result.metafile!.outputs)[0]!.bytes;
  const { ratio, bundleMs } = coldRatio(options.outfile!, bare);
  console.log(
    `  ${label}: ${(bytes / 1024).toFixed(1)} KiB, cold import ${bundleMs.toFixed(1)} ms, ratio ${ratio.toFixed(3)}`,
  );
}

main()
  .then(observabilitySection)
  .catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
