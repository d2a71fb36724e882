/**
 * `npm start`'s settings: the command line's options, its `--help`, and the documented
 * environment variables read into `LocalOptions` (also read by `npm run db`).
 */
import { TOKEN_FORMAT } from '../../../lambda/tokens/token';
import { API, STAGE_THROTTLE } from '../../definitions/api';
import type { FunctionName } from '../../definitions/functions';
import { retryScheduleText } from '../../definitions/webhooks';
import type { Uses } from '../../definitions/resources';
import { UsageError, integerOption } from '../../cli/args';
import { helpRows } from '../../cli/help';
import { LOCAL_ENVIRONMENT, START_FLAGS } from '../../definitions/settings';
import type { ThrottleSettings } from '../gateway/throttle';
import {
  DEFAULT_CONCURRENCY,
  DEFAULT_DB_PORT,
  DEFAULT_INSPECT_PORT,
  DEFAULT_PORT,
  DEFAULT_SANDBOX_IDLE_SECONDS,
  dataDirOf,
  envInteger,
} from './settings';
import { retryScaleFromEnvironment } from '../names';

/** Settings of a local run; `fromEnvironment` reads them as `npm start` documents them. */
export interface LocalOptions {
  /** HTTP port; 0 picks a free one. */
  readonly port: number;
  /** Engine port; 0 picks a free one. */
  readonly dbPort: number;
  /** The console's port (`npm start` serves it beside the API); 0 picks a free one. @default 0 */
  readonly consolePort?: number;
  /** Where data and the dev token live. */
  readonly dataDir: string;
  /** Keep the tables in memory (the dev token file still lives in `dataDir`). */
  readonly memory: boolean;
  readonly authCacheTtlSeconds: number;
  /** A token to make valid with every scope; otherwise one is kept in `dataDir`. */
  readonly devToken?: string;
  /** Rebuild and swap on a change under `lambda/`, restart the gateway on `lib/definitions/api.ts`. @default false */
  readonly watch?: boolean;
  /** Sandboxes per function that may run at once; more invocations are throttled. @default DEFAULT_CONCURRENCY (64) */
  readonly concurrency?: number;
  /** Seconds an idle sandbox lives. @default - sandboxes never idle out */
  readonly idleSeconds?: number;
  /**
   * Run each function's one sandbox under the inspector, on ports from this one up in the order
   * of `FUNCTION_NAMES`, with source maps. @default - no inspector
   */
  readonly inspectFirstPort?: number;
  /** The stage throttle. @default - none */
  readonly throttle?: ThrottleSettings;
  /** Multiplies the webhook's retry delays (`PLANT_STORE_WEBHOOK_RETRY_SCALE`). @default 1 */
  readonly webhookRetryScale?: number;
  /**
   * What some functions are given instead of what the registry gives them (a clone of the
   * registry, for tests): each call is judged by the policy these grants make.
   * @default - the registry's
   */
  readonly grants?: Partial<Record<FunctionName, Uses>>;
  /** See `EngineOptions.holdIndexBuilds` (tests). @default - builds start at once */
  readonly holdIndexBuilds?: Promise<void>;
  readonly log: (line: string) => void;
}

/** `npm start`'s options, for `lib/cli/args.ts`: its flags without the dashes. */
export const START_OPTIONS = Object.fromEntries(
  Object.entries(START_FLAGS).map(([flag, spec]) => [
    flag.slice(2),
    { type: 'value' in spec ? 'string' : 'boolean' },
  ]),
) as {
  readonly [F in keyof typeof START_FLAGS as F extends `--${infer N}` ? N : never]: {
    type: (typeof START_FLAGS)[F] extends { value: string } ? 'string' : 'boolean';
  };
};

/** `npm start -- --help`: its flags and environment variables, from their definition. */
export const START_HELP = `Usage: npm start [-- [--memory] [--no-watch] [--inspect] [--throttle [--throttle-rate N] [--throttle-burst N]]]

Runs Plant Store on this machine: the deployed function bundles, each function a pool of
sandboxes on Lambda's Node, behind an emulated HTTP API, on an embedded DynamoDB engine.

Options:
${helpRows(Object.entries(START_FLAGS).map(([flag, spec]) => ['value' in spec ? `${flag} ${spec.value}` : flag, spec]))}
${helpRows([['--help', { meaning: 'this text' }]])}

Settings (environment variables):
${helpRows(Object.entries(LOCAL_ENVIRONMENT))}
`;

/** `npm run db -- --help`. */
export const DB_HELP = `Usage: npm run db [-- --memory]

Starts the embedded DynamoDB-compatible engine alone, with the tables and the webhook's
delivery and dead-letter queues (SQS's protocol, same port, in memory), for sam local and
npm run token / npm run webhook. Nothing runs the functions: sam local invokes them.

Options:
${helpRows([
  ['--memory', START_FLAGS['--memory']],
  ['--help', { meaning: 'this text' }],
])}

Settings (environment variables):
${helpRows([
  ['PLANT_STORE_DB_PORT', LOCAL_ENVIRONMENT.PLANT_STORE_DB_PORT],
  ['PLANT_STORE_DATA_DIR', LOCAL_ENVIRONMENT.PLANT_STORE_DATA_DIR],
])}
`;

/**
 * The settings that differ from their defaults, one phrase each, for the banner: what a
 * developer set in the environment weeks ago is said at every start.
 */
export function nonDefaultSettings(options: LocalOptions): string[] {
  const settings: string[] = [];
  const ttl = options.authCacheTtlSeconds;
  if (ttl !== API.authorizer.defaultCacheTtlSeconds) {
    settings.push(
      `PLANT_STORE_AUTH_CACHE_TTL=${ttl} (${ttl === 0 ? 'authorizer decisions not cached' : `decisions cached ${ttl} s`}; deployed: ${API.authorizer.defaultCacheTtlSeconds})`,
    );
  }
  const scale = options.webhookRetryScale ?? 1;
  if (scale !== 1) {
    settings.push(
      `PLANT_STORE_WEBHOOK_RETRY_SCALE=${scale} (webhook retry delays: ${retryScheduleText(scale)})`,
    );
  }
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  if (concurrency !== DEFAULT_CONCURRENCY) {
    settings.push(`PLANT_STORE_CONCURRENCY=${concurrency} (invocations in flight per function)`);
  }
  if (options.idleSeconds !== undefined && options.idleSeconds !== DEFAULT_SANDBOX_IDLE_SECONDS) {
    settings.push(`PLANT_STORE_SANDBOX_IDLE_SECONDS=${options.idleSeconds}`);
  }
  return settings;
}

/** Reads the documented environment variables, failing on a malformed one by name. */
export function optionsFromEnvironment(
  env: NodeJS.ProcessEnv,
  values: Readonly<Record<string, string | boolean | undefined>>,
  log: (line: string) => void,
): LocalOptions {
  try {
    const devToken = env.PLANT_STORE_DEV_TOKEN || undefined;
    // Checked before anything starts, so that a bad value is one line and nothing to stop.
    if (devToken !== undefined && !TOKEN_FORMAT.test(devToken)) {
      throw new Error('PLANT_STORE_DEV_TOKEN must be pst_ followed by 43 base64url characters');
    }
    const concurrency = envInteger(env, 'PLANT_STORE_CONCURRENCY', DEFAULT_CONCURRENCY, 1000);
    if (concurrency < 1) throw new Error('PLANT_STORE_CONCURRENCY must be from 1 to 1000, not 0');
    const rate = values['throttle-rate'];
    const burst = values['throttle-burst'];
    const throttled = values.throttle === true || rate !== undefined || burst !== undefined;
    const inspectFirstPort = envInteger(
      env,
      'PLANT_STORE_INSPECT_PORT',
      DEFAULT_INSPECT_PORT,
      65535,
    );
    if (values.inspect === true && inspectFirstPort < 1024) {
      throw new Error(
        `PLANT_STORE_INSPECT_PORT must be from 1024 to 65535, not ${inspectFirstPort}`,
      );
    }
    return {
      port: envInteger(env, 'PORT', DEFAULT_PORT, 65535),
      dbPort: envInteger(env, 'PLANT_STORE_DB_PORT', DEFAULT_DB_PORT, 65535),
      consolePort: envInteger(
        env,
        'PLANT_STORE_CONSOLE_PORT',
        LOCAL_ENVIRONMENT.PLANT_STORE_CONSOLE_PORT.default,
        65535,
      ),
      dataDir: dataDirOf(env),
      memory: values.memory === true,
      authCacheTtlSeconds: envInteger(
        env,
        'PLANT_STORE_AUTH_CACHE_TTL',
        API.authorizer.defaultCacheTtlSeconds,
        3600,
      ),
      devToken,
      watch: values['no-watch'] !== true,
      concurrency,
      idleSeconds: envInteger(
        env,
        'PLANT_STORE_SANDBOX_IDLE_SECONDS',
        DEFAULT_SANDBOX_IDLE_SECONDS,
        86_400,
      ),
      inspectFirstPort: values.inspect === true ? inspectFirstPort : undefined,
      webhookRetryScale: retryScaleFromEnvironment(env),
      throttle: throttled
        ? {
            rateLimit: integerOption(rate, 'throttle-rate', STAGE_THROTTLE.rateLimit, 0, 100_000),
            burstLimit: integerOption(
              burst,
              'throttle-burst',
              STAGE_THROTTLE.burstLimit,
              0,
              100_000,
            ),
          }
        : undefined,
      log,
    };
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}
