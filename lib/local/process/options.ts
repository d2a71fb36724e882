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
import { retryScaleFromEnvironment } from '../webhooks';

/** Settings of a local run; `fromEnvironment` reads them as `npm start` documents them. */
export interface LocalOptions {
  /** HTTP port; 0 picks a free one. */
  readonly port: number;
  /** Engine port; 0 picks a free one. */
  readonly dbPort: number;
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

/** `npm start`'s options, for `lib/cli/args.ts`. */
export const START_OPTIONS = {
  memory: { type: 'boolean' },
  'no-watch': { type: 'boolean' },
  inspect: { type: 'boolean' },
  throttle: { type: 'boolean' },
  'throttle-rate': { type: 'string' },
  'throttle-burst': { type: 'string' },
} as const;

/** `npm start -- --help`. */
export const START_HELP = `Usage: npm start [-- [--memory] [--no-watch] [--inspect] [--throttle [--throttle-rate N] [--throttle-burst N]]]

Runs Plant Store on this machine: the deployed function bundles, each function a pool of
sandboxes on Lambda's Node, behind an emulated HTTP API, on an embedded DynamoDB engine.

Options:
  --memory            tables in memory, gone on exit (default: in $PLANT_STORE_DATA_DIR/db)
  --no-watch          do not rebuild on change (default: a saved change under lambda/ is rebuilt
                      and served by new sandboxes; a change to lib/definitions/api.ts restarts the gateway)
  --inspect           debug the functions: one sandbox per function, each with the inspector on
                      its own port (printed; from $PLANT_STORE_INSPECT_PORT up), bundles with
                      source maps, no timeouts; attach VS Code with .vscode/launch.json
  --throttle          answer 429 {"message":"Too Many Requests"} past the stage throttle
                      (a token bucket: ${STAGE_THROTTLE.rateLimit} requests/s, burst ${STAGE_THROTTLE.burstLimit}, as deployed)
  --throttle-rate N   requests per second the bucket refills (implies --throttle)
  --throttle-burst N  the bucket's size (implies --throttle)
  --help              this text

Settings (environment variables):
  PORT                        HTTP port on 127.0.0.1 (default ${DEFAULT_PORT}; 0 picks a free one)
  PLANT_STORE_DB_PORT         engine port (default ${DEFAULT_DB_PORT}; 0 picks a free one)
  PLANT_STORE_DATA_DIR        data, bundles and the dev token (default .plant-store)
  PLANT_STORE_DEV_TOKEN       a pst_ token to make valid with every scope
  PLANT_STORE_AUTH_CACHE_TTL  seconds an authorizer decision is cached (default ${API.authorizer.defaultCacheTtlSeconds}; 0 = off)
  PLANT_STORE_CONCURRENCY     sandboxes per function at once (default ${DEFAULT_CONCURRENCY}); more are throttled
  PLANT_STORE_SANDBOX_IDLE_SECONDS
                              seconds an idle sandbox lives before it exits (default ${DEFAULT_SANDBOX_IDLE_SECONDS});
                              the next request starts a new one (INIT_START)
  PLANT_STORE_INSPECT_PORT    first inspector port with --inspect (default ${DEFAULT_INSPECT_PORT})
  PLANT_STORE_SHOW_METRICS    1 shows the functions' metric lines (hidden by default)
  PLANT_STORE_WEBHOOK_RETRY_SCALE
                              multiplies the webhook's retry delays (above 0, at most 1; default 1:
                              ${retryScheduleText()};
                              0.01: ${retryScheduleText(0.01)})
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
