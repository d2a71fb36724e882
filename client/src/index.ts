/**
 * `@plant-store/client`: a typed client of the Plant Store API that keeps int64 ids exact. Ids
 * come back as `bigint`; they go in as a `bigint`, a decimal string or a safe-integer `number`.
 * No Node built-ins and no dependencies: it runs in Node 20+ and in browsers, as ESM or CommonJS.
 */
export { PlantStore } from './plant-store.js';
export type {
  CallOptions,
  IfMatch,
  NewPlant,
  PageQuery,
  Plant,
  PlantPage,
  PlantPatch,
  PlantStoreOptions,
  PlantUpdate,
  PlantVersion,
  StoredPlant,
  VersionedPlant,
  WalkOptions,
  WriteOptions,
} from './plant-store.js';
export {
  AuthenticationError,
  BadRequestError,
  ConflictError,
  ConnectionError,
  ConnectionTimeoutError,
  InternalServerError,
  NotFoundError,
  PayloadTooLargeError,
  PermissionDeniedError,
  PlantStoreError,
  PreconditionFailedError,
  RateLimitError,
} from './errors.js';
export { APIPromise, type WithResponse } from './api-promise.js';
export type { Logger, LogFn, LogLevel } from './logging.js';
export type { PlantId } from './ids.js';
export type { RetryOptions } from './retry.js';
export { DEFAULT_TIMEOUT_MS } from './timeout.js';
export { parseExact } from './exact-json.js';
export type { components, paths } from './schema.js';
