/**
 * Function output made readable for `npm start`: a Powertools JSON log line becomes
 * `[create-plant] INFO created id=42 (caller tok_dev, req abc)`, an EMF metric line is hidden
 * (or shown compactly with `PLANT_STORE_SHOW_METRICS=1`), anything else is shown as printed.
 */

/** How to show function output. */
export interface LogFormatOptions {
  /** Show EMF metric lines (as `metrics Name=1 …`) instead of hiding them. */
  readonly metrics: boolean;
  /**
   * `PLANT_STORE_WEBHOOK_RETRY_SCALE`: a retry delay a function logs (`retryAfterSeconds`) is
   * shown with the delay the local queue really waits. @default 1
   */
  readonly retryScale?: number;
}

/** The fields shown after the outcome, in this order, under these short names. */
const SHOWN_FIELDS: readonly [string, string][] = [
  ['plantId', 'id'],
  ['reason', 'reason'],
  ['rule', 'rule'],
];

/** Keys Powertools adds that a developer does not need to read on every line. */
const HIDDEN_FIELDS = new Set([
  'level',
  'message',
  'timestamp',
  'service',
  'cold_start',
  'function_arn',
  'function_memory_size',
  'function_name',
  'function_request_id',
  'sampling_rate',
  'xray_trace_id',
  'requestId',
  'tokenId',
  'error',
  ...SHOWN_FIELDS.map(([key]) => key),
]);

function parseObject(line: string): Record<string, unknown> | undefined {
  if (!line.startsWith('{')) return undefined;
  try {
    const value: unknown = JSON.parse(line);
    return value && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** `Name=value` for each metric of an EMF line. */
function formatMetrics(record: Record<string, unknown>): string {
  const aws = record._aws as { CloudWatchMetrics?: { Metrics?: { Name: string }[] }[] };
  const names = (aws.CloudWatchMetrics ?? []).flatMap((set) => set.Metrics ?? []);
  const values = names.map(({ Name }) => `${Name}=${text(record[Name])}`);
  const reason = record.reason === undefined ? '' : ` reason=${text(record.reason)}`;
  return `metrics ${values.join(' ')}${reason}`;
}

/** A Powertools error field as one line (`Name: message`) plus its stack, indented. */
function formatError(error: unknown): string {
  if (!error || typeof error !== 'object') return ` error=${text(error)}`;
  const { name, message, stack } = error as { name?: string; message?: string; stack?: string };
  const frames = (stack ?? '').split('\n').slice(1);
  return ` error=${name ?? 'Error'}: ${message ?? ''}${frames.map((f) => `\n    ${f.trim()}`).join('')}`;
}

/**
 * One line of a function's output as `npm start` shows it, prefixed with the function's name;
 * `undefined` when it is hidden (an EMF line without `metrics`).
 */
export function formatLogLine(
  name: string,
  line: string,
  options: LogFormatOptions = { metrics: false },
): string | undefined {
  const record = parseObject(line);
  if (!record) return `[${name}] ${line}`;
  if ('_aws' in record) return options.metrics ? `[${name}] ${formatMetrics(record)}` : undefined;
  if (typeof record.level !== 'string' || !('message' in record)) return `[${name}] ${line}`;
  const shown = SHOWN_FIELDS.filter(([key]) => record[key] !== undefined).map(
    ([key, label]) => ` ${label}=${text(record[key])}`,
  );
  const scale = options.retryScale ?? 1;
  const extra = Object.keys(record)
    .filter((key) => !HIDDEN_FIELDS.has(key))
    .map((key) => {
      const value = record[key];
      // The queue multiplies the delay the function asks for: show both.
      if (key === 'retryAfterSeconds' && typeof value === 'number' && scale !== 1) {
        return ` ${key}=${value} (scaled: ${Number((value * scale).toPrecision(3))} s)`;
      }
      return ` ${key}=${text(value)}`;
    });
  // Who called, apart from the outcome: `invalid token=tok_dev` read as an invalid token.
  const about = [
    ...(record.tokenId === undefined ? [] : [`caller ${text(record.tokenId)}`]),
    ...(record.requestId === undefined ? [] : [`req ${text(record.requestId)}`]),
  ];
  const request = about.length ? ` (${about.join(', ')})` : '';
  const error = record.error === undefined ? '' : formatError(record.error);
  return `[${name}] ${record.level} ${text(record.message)}${shown.join('')}${extra.join('')}${request}${error}`;
}

/** The log callback of one local function: formats its lines and drops the hidden ones. */
export function functionLog(
  name: string,
  log: (line: string) => void,
  env: NodeJS.ProcessEnv = process.env,
  retryScale = 1,
): (line: string) => void {
  const options = { metrics: env.PLANT_STORE_SHOW_METRICS === '1', retryScale };
  return (line) => {
    const formatted = formatLogLine(name, line, options);
    if (formatted !== undefined) log(formatted);
  };
}
