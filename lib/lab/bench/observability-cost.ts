/**
 * What Powertools costs at cold start: each function's bundle built three ways with the stack's
 * esbuild options — with the logger and metrics stubbed out (a plain JSON line, no Powertools),
 * as deployed (logger + metrics), and as deployed plus the Powertools Tracer — each imported by
 * a fresh process of Lambda's Node, round-robin, and the medians compared.
 */
import { build, type BuildOptions } from 'esbuild';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bundleOutput } from '../../definitions/build';
import { ESBUILD_OPTIONS, PROJECT_ROOT } from '../../definitions/bundling';
import {
  FUNCTIONS,
  FUNCTION_NAMES,
  tableEnvironment,
  type FunctionName,
} from '../../definitions/functions';
import { localWebhookEnvironment } from '../../npm-start/in-process';
import { lambdaNode } from '../../definitions/lambda-node';
import { childEnvironment, freshProcess, median } from './measure';
import type { BenchPhase } from './phase';

/** The three builds of one function, in the order they are run in each round. */
export const VARIANTS = ['without', 'deployed', 'tracer'] as const;
/** One build of a function. */
export type Variant = (typeof VARIANTS)[number];

/** The figures for one function. */
export interface ObservabilityCost {
  readonly name: FunctionName;
  /** Bundle size in KiB per variant. */
  readonly kib: Record<Variant, number>;
  /** Median cold import in ms per variant (wall clock). */
  readonly medianMs: Record<Variant, number>;
  /** Median over rounds of (deployed − without) and (tracer − deployed), in wall-clock ms. */
  readonly powertoolsMs: number;
  readonly tracerMs: number;
  /** The same two differences in CPU ms of the importing process. */
  readonly powertoolsCpuMs: number;
  readonly tracerCpuMs: number;
}

/** Stand-ins with the same surface, writing one JSON line as the functions did before. */
const STUBS = {
  logger: `export class Logger {
  addContext() {}
  info(message, fields) { console.log(JSON.stringify({ level: 'INFO', message, ...fields })); }
  error(message, fields) { console.error(JSON.stringify({ level: 'ERROR', message, ...fields })); }
}`,
  metrics: `export const MetricUnit = { Count: 'Count' };
export class Metrics {
  addMetric() {}
  addDimension() {}
  singleMetric() { return this; }
  hasStoredMetrics() { return false; }
  publishStoredMetrics() {}
}`,
};

/** Builds the three variants of one function into `outdir`; returns file and size per variant. */
async function buildVariants(name: FunctionName, outdir: string) {
  const entry = join(PROJECT_ROOT, FUNCTIONS[name].entry);
  const base: BuildOptions = {
    ...ESBUILD_OPTIONS,
    mainFields: [...ESBUILD_OPTIONS.mainFields],
    external: [...ESBUILD_OPTIONS.external],
    absWorkingDir: PROJECT_ROOT,
    metafile: true,
    logLevel: 'error',
  };
  const stubs = join(outdir, 'stubs');
  mkdirSync(stubs, { recursive: true });
  writeFileSync(join(stubs, 'logger.mjs'), STUBS.logger);
  writeFileSync(join(stubs, 'metrics.mjs'), STUBS.metrics);
  const options: Record<Variant, BuildOptions> = {
    without: {
      ...base,
      entryPoints: [entry],
      alias: {
        ...ESBUILD_OPTIONS.alias,
        '@aws-lambda-powertools/logger': join(stubs, 'logger.mjs'),
        '@aws-lambda-powertools/metrics': join(stubs, 'metrics.mjs'),
      },
    },
    deployed: { ...base, entryPoints: [entry] },
    tracer: {
      ...base,
      stdin: {
        contents: [
          "import { Tracer } from '@aws-lambda-powertools/tracer';",
          `export { handler } from ${JSON.stringify(entry)};`,
          'export const tracer = new Tracer();',
        ].join('\n'),
        resolveDir: PROJECT_ROOT,
        loader: 'ts',
      },
    },
  };
  const built = {} as Record<Variant, { file: string; kib: number }>;
  for (const variant of VARIANTS) {
    const file = join(outdir, name, `${variant}.mjs`);
    const result = await build({ ...options[variant], outfile: file, outExtension: undefined });
    built[variant] = { file, kib: bundleOutput(result.metafile!)[1].bytes / 1024 };
  }
  return built;
}

/**
 * Measures every function of the registry: `runs` rounds of one fresh import per variant,
 * round-robin, on Lambda's Node (`lambdaNode()`), with a clean environment (no
 * NODE_EXTRA_CA_CERTS).
 */
export async function measureObservabilityCost(options: {
  readonly runs: number;
  readonly outdir: string;
}): Promise<ObservabilityCost[]> {
  const node = lambdaNode().path;
  const costs: ObservabilityCost[] = [];
  for (const name of FUNCTION_NAMES) {
    const built = await buildVariants(name, options.outdir);
    const env = childEnvironment({
      AWS_LAMBDA_FUNCTION_NAME: name,
      ...tableEnvironment(name, (_, table) => table.localName),
      // Only imported, never called: the webhook functions need their queue's URL to load.
      ...localWebhookEnvironment(name, 'http://127.0.0.1:8000'),
    });
    const coldImport = async (file: string) => {
      const time = await freshProcess(node, `await import(${JSON.stringify(file)});`, env);
      return { wall: time.wallMs, cpu: time.cpuMs };
    };
    for (const variant of VARIANTS) await coldImport(built[variant].file); // warm the disk
    const times: Record<Variant, number[]> = { without: [], deployed: [], tracer: [] };
    const cpu: Record<Variant, number[]> = { without: [], deployed: [], tracer: [] };
    for (let round = 0; round < options.runs; round++) {
      for (const variant of VARIANTS) {
        const sample = await coldImport(built[variant].file);
        times[variant].push(sample.wall);
        cpu[variant].push(sample.cpu);
      }
    }
    const byRound = (a: Variant, b: Variant, of = times) =>
      median(of[a].map((t, round) => t - of[b][round]!));
    costs.push({
      name,
      kib: Object.fromEntries(VARIANTS.map((v) => [v, built[v].kib])) as Record<Variant, number>,
      medianMs: Object.fromEntries(VARIANTS.map((v) => [v, median(times[v])])) as Record<
        Variant,
        number
      >,
      powertoolsMs: byRound('deployed', 'without'),
      tracerMs: byRound('tracer', 'deployed'),
      powertoolsCpuMs: byRound('deployed', 'without', cpu),
      tracerCpuMs: byRound('tracer', 'deployed', cpu),
    });
  }
  return costs;
}

/** The figures as printed by `npm run bench`. */
export function formatObservabilityCost(costs: readonly ObservabilityCost[], runs: number): string {
  const lines = [
    `Powertools at cold start (${runs} rounds of fresh imports on Lambda's Node ${lambdaNode().major}, medians):`,
  ];
  for (const c of costs) {
    lines.push(
      `  ${c.name}: without ${c.kib.without.toFixed(1)} KiB ${c.medianMs.without.toFixed(1)} ms; ` +
        `logger+metrics ${c.kib.deployed.toFixed(1)} KiB ${c.medianMs.deployed.toFixed(1)} ms (+${c.powertoolsMs.toFixed(1)} ms); ` +
        `+ tracer ${c.kib.tracer.toFixed(1)} KiB ${c.medianMs.tracer.toFixed(1)} ms (+${c.tracerMs.toFixed(1)} ms more); ` +
        `in CPU time: logger+metrics +${c.powertoolsCpuMs.toFixed(1)} ms, tracer +${c.tracerCpuMs.toFixed(1)} ms more`,
    );
  }
  return lines.join('\n');
}

/** The `observability` phase of `npm run bench`. */
export const observabilityCost: BenchPhase = {
  name: 'observability',
  description: 'Powertools at cold start: each bundle without it, as deployed, and with the Tracer',
  async run({ runs, dir, print }) {
    const costs = await measureObservabilityCost({ runs, outdir: join(dir, 'observability') });
    print(`${formatObservabilityCost(costs, runs)}\n`);
  },
};
