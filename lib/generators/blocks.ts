/**
 * The producers of the generated blocks in README.md and docs/: a page holds
 * `<!-- BEGIN GENERATED: name -->` … `<!-- END GENERATED: name -->` and `npm run generate`
 * fills it with what the producer of that name returns (markdown). A new block is one entry.
 */
import type { BlockProducer } from './generate';
import { fieldLimits } from './docs/field-limits';
import { plantSize } from './docs/plant-size';
import { retrySchedule } from './docs/retry-schedule';
import {
  benchPhases,
  coldFigures,
  cpuFigures,
  offlineFigures,
  offlineRun,
  requestFigures,
} from './docs/performance';
import { CAPACITY_BLOCKS } from './capacity/tables';

export const BLOCKS: Readonly<Record<string, BlockProducer>> = {
  /** A plant's fields: type, required, limits (the `NewPlant` schema). */
  'field-limits': fieldLimits,
  /** The largest item a create can store, its DynamoDB units, and the largest list page. */
  'plant-size': plantSize,
  /** The webhook's retry delays, attempts and horizon, deployed and at a local retry scale. */
  'retry-schedule': retrySchedule,
  /** `npm run bench`'s phases, each with what it measures. */
  'bench-phases': benchPhases,
  /** The request path's per-invocation figures the bench recorded (measurements/bench.json). */
  'bench-request-figures': requestFigures,
  /** Each function's cold import over the SDK's floor, as the bench recorded it. */
  'bench-cold-figures': coldFigures,
  /** npm start's CPU time a request by process role, at one connection and under load. */
  'bench-cpu-figures': cpuFigures,
  /** How to install serverless-offline and record the offline figures. */
  'bench-offline-run': offlineRun,
  /** npm start against serverless-offline, side by side, as the bench recorded it. */
  'bench-offline-figures': offlineFigures,
  /** The capacity model's tables (capacity-measured, -shape, -cost, -raising). */
  ...CAPACITY_BLOCKS,
};
