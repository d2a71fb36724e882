/**
 * What the client tells a logger: at `warn`, each retry (why, and how long it waits); at
 * `debug`, each request and each answer line. Lines carry the method, URL, status, request id
 * and timing, never a header: the token cannot reach a log.
 */

/** A log function: a message, then details. */
export type LogFn = (message: string, ...details: unknown[]) => void;

/** Where log lines go: the console, or any object with these four methods (pino, winston…). */
export interface Logger {
  readonly debug: LogFn;
  readonly info: LogFn;
  readonly warn: LogFn;
  readonly error: LogFn;
}

/** The least severe level that is logged; `'off'` logs nothing. */
export type LogLevel = 'off' | 'error' | 'warn' | 'info' | 'debug';

const SEVERITY: Readonly<Record<LogLevel, number>> = {
  off: 0,
  error: 1,
  warn: 2,
  info: 3,
  debug: 4,
};

const silent: LogFn = () => undefined;

/** The logger's methods at or above `level`, the others silent. @default console, 'warn' */
export function levelLogger(logger: Logger = console, level: LogLevel = 'warn'): Logger {
  if (!Object.hasOwn(SEVERITY, level)) {
    throw new TypeError(`logLevel must be one of ${Object.keys(SEVERITY).join(', ')}`);
  }
  const at = (name: Exclude<LogLevel, 'off'>): LogFn =>
    SEVERITY[level] >= SEVERITY[name]
      ? (message, ...rest) => logger[name](message, ...rest)
      : silent;
  return { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') };
}
