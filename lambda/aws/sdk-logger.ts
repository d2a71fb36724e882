/** The logger every SDK client of the functions is given. */
import type { Logger } from '@smithy/types';

/**
 * The SDK's default logger, `NoOpLogger`, is told by its class's name: for it the SDK writes its
 * own warnings (a socket pool at capacity, an over-long app id, a response it cannot read) with
 * `console.warn`. The bundles are minified without `keepNames`, so that class has another name
 * and the SDK would give those warnings to it, which drops them. This logger says them as the SDK
 * did, and drops the rest as the default does: `info` is a line per command, and `error` a failure
 * the handler logs itself.
 */
export const SDK_LOGGER: Logger = {
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: (...content: unknown[]) => console.warn(...content),
  error: () => undefined,
};
