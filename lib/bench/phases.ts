/** Every bench phase, in the order `npm run bench` runs them; a new phase is one entry here. */
import { bundlingVariants } from './bundling-variants';
import { coldStart } from './cold-start';
import { handlerOverhead } from './handler-overhead';
import { load } from './load';
import { localRuntime } from './local-runtime';
import type { BenchPhase } from './phase';

/** The phases, by default all of them. */
export const PHASES: readonly BenchPhase[] = [
  coldStart,
  handlerOverhead,
  load,
  localRuntime,
  bundlingVariants,
];
