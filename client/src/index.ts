/**
 * `@plant-store/client`: a typed client of the Plant Store API that keeps int64 ids exact. Ids
 * come back as `bigint`; they go in as a `bigint`, a decimal string or a safe-integer `number`.
 * No Node built-ins: it runs in Node 20+ and in browsers.
 */
export { PlantStore } from './plant-store.js';
export type {
  CallOptions,
  NewPlant,
  PageQuery,
  Plant,
  PlantPage,
  PlantStoreOptions,
  StoredPlant,
} from './plant-store.js';
export { PlantStoreError } from './errors.js';
export type { PlantId } from './ids.js';
export type { RetryOptions } from './retry.js';
export { parseExact } from './exact-json.js';
export type { components, paths } from './schema.js';
