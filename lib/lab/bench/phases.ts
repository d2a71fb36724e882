/** Every bench phase, in the order `npm run bench` runs them; a new phase is one entry here. */
import { bundlingVariants } from './bundling-variants';
import { coldStart } from './cold-start';
import { cpuPerRequest } from './cpu-per-request';
import { fanOutThroughput } from './fan-out';
import { handlerOverhead } from './handler-overhead';
import { load } from './load';
import { localRuntime } from './local-runtime';
import { median } from './measure';
import { offline } from './offline';
import { observabilityCost } from './observability-cost';
import { parseTime } from './parse-time';
import { perRequest } from './per-request';
import type { BenchPhase } from './phase';
import { readableErrors } from './readable-errors';
import { benchWatchReload } from './watch-reload';

/** Watch mode's save-to-new-answer time (`lib/lab/bench/watch-reload.ts`). */
const watchReload: BenchPhase = {
  name: 'watch',
  description: "npm start's watch mode: a saved change to the first answer carrying it",
  async run({ print }) {
    const saves = await benchWatchReload();
    print('Watch mode: save to new answer');
    for (const kind of new Set(saves.map((save) => save.kind))) {
      const ms = saves.filter((save) => save.kind === kind).map((save) => save.ms);
      const list = ms.map((m) => m.toFixed(0)).join(', ');
      print(`  ${kind.padEnd(16)} ${list} ms; median ${median(ms).toFixed(0)} ms`);
    }
    print(`  all              median ${median(saves.map((save) => save.ms)).toFixed(0)} ms\n`);
  },
};

/** The phases, by default all of them. */
export const PHASES: readonly BenchPhase[] = [
  coldStart,
  handlerOverhead,
  parseTime,
  load,
  cpuPerRequest,
  localRuntime,
  watchReload,
  bundlingVariants,
  observabilityCost,
  perRequest,
  fanOutThroughput,
  readableErrors,
  offline,
];
