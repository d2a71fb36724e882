/**
 * Cold start, per function of the registry, on each Node the bench is given (Lambda's first):
 * bundle bytes; a fresh process importing the bundle against one importing a bare handler; and
 * a fresh process importing it and making its first real call over HTTPS, against one importing
 * and calling the bare handler. On Lambda's Node, also each pair started as Lambda starts them
 * (its runtime's flags and its client's built-ins first; the function through its start wrapper,
 * the bare handler as Lambda starts one), the import without the wrapper, and both through it
 * (for the import and for the first call).
 * Both arms of a pair get the same environment, with `NODE_EXTRA_CA_CERTS` naming only the
 * engine's certificate in the call arms (unset otherwise).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Metafile } from 'esbuild';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { makeDocumentClient } from '../../../lambda/aws/dynamodb';
import { ALL_SCOPES, generateToken, tokenItem } from '../../../lambda/tokens/token';
import { TOKENS_TABLE, TokensTable } from '../../../lambda/tokens/table';
import { buildFunctions, bundleOutput, functionBuildOptions } from '../../definitions/build';
import { PROJECT_ROOT } from '../../definitions/bundling';
import { FUNCTIONS, tableEnvironment } from '../../definitions/functions';
import {
  LAMBDA_RUNTIME_BUILTINS,
  lambdaRuntimeFlags,
  START_WRAPPER,
} from '../../definitions/lambda-node';
import { localWebhookEnvironment } from '../../npm-start/in-process';
import { measuredHere } from '../measurements';
import { firstEvent } from './events';
import { startHttpsEngine } from './https-engine';
import {
  alternatingPairs,
  childEnvironment,
  freshProcess,
  machineNode,
  ms,
  recordFigures,
  signedMs,
  type NodeStart,
  type PairFigures,
} from './measure';
import type { BenchContext, BenchPhase } from './phase';

const IMPORT = (url: string) => `await import(${JSON.stringify(url)});`;
// The event is read from a file named by the first argument, in both arms alike.
const CALL = (url: string) =>
  [
    "import { readFileSync } from 'node:fs';",
    `const { handler } = await import(${JSON.stringify(url)});`,
    "const result = await handler(JSON.parse(readFileSync(process.argv[1], 'utf8')), { awsRequestId: 'bench' });",
    'if (!result || result.isAuthorized === false || result.statusCode >= 500) {',
    '  console.error(JSON.stringify(result)); process.exit(1);',
    '}',
  ].join('\n');
const BARE = 'export const handler = async () => ({ statusCode: 200 });\n';
// Prepended to both arms of the "as Lambda starts it" pairs: what the runtime has loaded and made
// before it imports the handler (LAMBDA_RUNTIME_BUILTINS), required without an ES module facade,
// as its client requires them.
const RUNTIME_PRELUDE = [
  `for (const id of ${JSON.stringify(LAMBDA_RUNTIME_BUILTINS)}) process.getBuiltinModule(id);`,
  "new (process.getBuiltinModule('node:http').Agent)({ keepAlive: true, maxSockets: 1 });",
  '',
].join('\n');

/**
 * The floor of every function that calls DynamoDB: the SDK's client and one document client,
 * made as the functions make theirs (`makeDocumentClient`) and nothing else of ours, built with
 * the functions' own options (aliases and all). What a function costs over bare is this floor
 * plus what it adds (Powertools, valibot, our code).
 */
const SDK_FLOOR = [
  "import { makeDocumentClient } from './lambda/aws/dynamodb';",
  'const client = makeDocumentClient();',
  'export const handler = async () => ({ statusCode: 200, client: typeof client });',
].join('\n');

/** Builds the floor into `dir/sdk-floor/index.mjs` with create-plant's options: its URL and size. */
async function buildSdkFloor(dir: string): Promise<{ url: string; bytes: number }> {
  const file = join(dir, 'sdk-floor', 'index.mjs');
  const { metafile } = await build({
    ...functionBuildOptions('create-plant', dir),
    entryPoints: undefined,
    outdir: undefined,
    outfile: file,
    stdin: {
      contents: SDK_FLOOR,
      resolveDir: PROJECT_ROOT,
      sourcefile: 'sdk-floor.ts',
      loader: 'ts',
    },
  });
  return { url: pathToFileURL(file).href, bytes: bundleOutput(metafile!)[1].bytes };
}

/** The packages contributing most bytes to a bundle. */
function largestInputs(metafile: Metafile, count = 4): string {
  const [, output] = bundleOutput(metafile);
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

/** A pair's extra as `measurements/bench.json` keeps it. */
const extra = ({ wall, cpu }: { wall: PairFigures; cpu: PairFigures }) => ({
  ms: Number(wall.extraMs.toFixed(2)),
  cpuMs: Number(cpu.extraMs.toFixed(2)),
});

const figures = ({ wall, cpu }: { wall: PairFigures; cpu: PairFigures }) =>
  `${ms(wall.subjectMs)} vs bare ${ms(wall.baselineMs)}: ${signedMs(wall.extraMs)}, ${wall.ratio.toFixed(2)}× (CPU time ${signedMs(cpu.extraMs)}, ${cpu.ratio.toFixed(2)}×)`;

/** The cold-start phase. */
export const coldStart: BenchPhase = {
  name: 'cold',
  description: 'bundle bytes, cold import and import + first call over HTTPS, per function',
  records: 'cold',
  async run(context: BenchContext) {
    const dir = join(context.dir, 'cold');
    mkdirSync(dir, { recursive: true });
    const bare = pathToFileURL(join(dir, 'bare.mjs')).href;
    const wrapper = join(PROJECT_ROOT, START_WRAPPER.source);
    writeFileSync(join(dir, 'bare.mjs'), BARE);
    const built = await buildFunctions(join(dir, 'bundles'));
    const floor = await buildSdkFloor(join(dir, 'bundles'));
    const engine = await startHttpsEngine(dir);
    try {
      const { token, tokenId } = generateToken();
      const tokens = DynamoDBDocumentClient.from(makeDocumentClient(engine.clientConfig));
      await new TokensTable(tokens, TOKENS_TABLE.localName).put(
        tokenItem(token, tokenId, { name: 'bench', scopes: ALL_SCOPES }),
      );
      tokens.destroy();
      const nodes = [context.lambdaNode.path, machineNode() ?? process.execPath].filter(
        (node, index, all) => all.indexOf(node) === index,
      );
      for (const node of nodes) {
        const version = execFileSync(node, ['--version'], { env: childEnvironment() })
          .toString()
          .trim();
        context.print(
          `Cold start on Node ${version} (${context.runs} alternating pairs of fresh processes, medians; NODE_EXTRA_CA_CERTS unset):`,
        );
        const floorEnv = childEnvironment();
        const floorImport = await alternatingPairs(
          context.runs,
          () => freshProcess(node, IMPORT(floor.url), floorEnv),
          () => freshProcess(node, IMPORT(bare), floorEnv),
        );
        context.print(
          `  the floor, the SDK alone (one document client as the functions make it, the functions' build): ${(floor.bytes / 1024).toFixed(1)} KiB`,
        );
        context.print(`    cold import: ${figures(floorImport)}`);
        const overFloors: [string, ReturnType<typeof extra>][] = [];
        for (const fn of built) {
          const url = pathToFileURL(fn.file).href;
          // Lambda's runtime starts Node with these (the function through its start wrapper).
          const flags = lambdaRuntimeFlags(FUNCTIONS[fn.name].memorySize);
          const env = childEnvironment({
            ...tableEnvironment(fn.name, (_key, table) => table.localName),
            ...localWebhookEnvironment(fn.name, engine.endpoint),
          });
          const imported = await alternatingPairs(
            context.runs,
            () => freshProcess(node, IMPORT(url), env),
            () => freshProcess(node, IMPORT(bare), env),
          );
          context.print(
            `  ${fn.name}: ${(fn.bytes / 1024).toFixed(1)} KiB (${largestInputs(fn.metafile)})`,
          );
          context.print(`    cold import: ${figures(imported)}`);
          if (node === context.lambdaNode.path) {
            // Alternated with the floor itself: what the function adds, without two bare series' noise.
            const overFloor = await alternatingPairs(
              context.runs,
              () => freshProcess(node, IMPORT(url), env),
              () => freshProcess(node, IMPORT(floor.url), env),
            );
            context.print(
              `    over the floor: ${signedMs(overFloor.wall.extraMs)} (CPU time ${signedMs(overFloor.cpu.extraMs)})`,
            );
            overFloors.push([fn.name, extra(overFloor)]);
            // As Lambda starts each (its runtime's flags, its client's built-ins first): a bare
            // handler as Lambda starts one, the function through its start wrapper; for what the
            // wrapper buys, the function without it; and like for like, both through it.
            const asLambda = (file: string, through?: string) => () =>
              freshProcess(node, RUNTIME_PRELUDE + IMPORT(file), env, [], {
                flags,
                wrapper: through,
              });
            const wrapped = await alternatingPairs(
              context.runs,
              asLambda(url, wrapper),
              asLambda(bare),
            );
            const unwrapped = await alternatingPairs(context.runs, asLambda(url), asLambda(bare));
            const alike = await alternatingPairs(
              context.runs,
              asLambda(url, wrapper),
              asLambda(bare, wrapper),
            );
            context.print(`    as Lambda starts it, over a bare handler: ${figures(wrapped)}`);
            context.print(`      without the start wrapper: ${figures(unwrapped)}`);
            context.print(
              `      like for like (the bare handler through the same wrapper): ${figures(alike)}`,
            );
          }
          if (firstEvent(fn.name, token, String(Date.now() * 1000)) === undefined) {
            context.print('    import + first call: no route reaches this function; not measured');
            continue;
          }
          const callEnv = {
            ...env,
            AWS_ENDPOINT_URL_DYNAMODB: engine.endpoint,
            NODE_EXTRA_CA_CERTS: engine.certFile,
          };
          const eventFile = join(dir, `${fn.name}-event.json`);
          const call =
            (script: string, start: NodeStart = {}) =>
            (run: number) => {
              writeFileSync(
                eventFile,
                JSON.stringify(firstEvent(fn.name, token, String(Date.now() * 1000 + run + 1))),
              );
              return freshProcess(node, script, callEnv, [eventFile], start);
            };
          const called = await alternatingPairs(context.runs, call(CALL(url)), call(CALL(bare)));
          context.print(`    import + first call over HTTPS: ${figures(called)}`);
          if (node === context.lambdaNode.path) {
            // As the import's pairs above: the function through its wrapper, against a bare
            // handler as Lambda starts one, then through the same wrapper.
            const callAsLambda = (file: string, through?: string) =>
              call(RUNTIME_PRELUDE + CALL(file), { flags, wrapper: through });
            const calledAsLambda = await alternatingPairs(
              context.runs,
              callAsLambda(url, wrapper),
              callAsLambda(bare),
            );
            context.print(`      as Lambda starts it: ${figures(calledAsLambda)}`);
            const calledAlike = await alternatingPairs(
              context.runs,
              callAsLambda(url, wrapper),
              callAsLambda(bare, wrapper),
            );
            context.print(
              `        like for like (the bare handler through the same wrapper): ${figures(calledAlike)}`,
            );
          }
        }
        context.print();
        if (node === context.lambdaNode.path) {
          recordFigures(context, 'cold', () => ({
            ...measuredHere(`npm run bench -- --phases cold --runs ${context.runs}`, node),
            floorOverBare: extra(floorImport),
            functions: Object.fromEntries(overFloors),
          }));
        }
      }
    } finally {
      await engine.close();
    }
  },
};
