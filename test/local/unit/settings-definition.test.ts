/**
 * `npm start` reads its settings from their one definition (lib/definitions/settings.ts), which
 * docs/reference/settings.md is generated from: every environment variable defined is one the
 * runtime reads, none is read that is not defined, and the command line takes exactly the flags
 * defined, each with its defined default.
 */
import { parseCommandLine } from '../../../lib/cli/args';
import { LOCAL_ENVIRONMENT, START_FLAGS } from '../../../lib/definitions/settings';
import { functionLog } from '../../../lib/local/dev/log-format';
import { optionsFromEnvironment, START_OPTIONS } from '../../../lib/local/process/options';

/** An environment that records each variable read. */
function recordingEnvironment(): { env: NodeJS.ProcessEnv; read: Set<string> } {
  const read = new Set<string>();
  const env = new Proxy({} as NodeJS.ProcessEnv, {
    get: (_target, key) => {
      if (typeof key === 'string') read.add(key);
      return undefined;
    },
  });
  return { env, read };
}

it('the runtime reads every environment variable defined, and no other PLANT_STORE_ one', () => {
  const { env, read } = recordingEnvironment();
  optionsFromEnvironment(env, {}, () => undefined);
  functionLog('get-plant', () => undefined, env);
  const ours = [...read].filter((name) => name === 'PORT' || name.startsWith('PLANT_STORE_'));
  expect(ours.sort()).toEqual(Object.keys(LOCAL_ENVIRONMENT).sort());
});

it('unset, each numeric variable is its defined default', () => {
  const options = optionsFromEnvironment({}, {}, () => undefined);
  expect({
    PORT: options.port,
    PLANT_STORE_DB_PORT: options.dbPort,
    PLANT_STORE_AUTH_CACHE_TTL: options.authCacheTtlSeconds,
    PLANT_STORE_CONCURRENCY: options.concurrency,
    PLANT_STORE_SANDBOX_IDLE_SECONDS: options.idleSeconds,
    PLANT_STORE_WEBHOOK_RETRY_SCALE: options.webhookRetryScale,
  }).toEqual({
    PORT: LOCAL_ENVIRONMENT.PORT.default,
    PLANT_STORE_DB_PORT: LOCAL_ENVIRONMENT.PLANT_STORE_DB_PORT.default,
    PLANT_STORE_AUTH_CACHE_TTL: LOCAL_ENVIRONMENT.PLANT_STORE_AUTH_CACHE_TTL.default,
    PLANT_STORE_CONCURRENCY: LOCAL_ENVIRONMENT.PLANT_STORE_CONCURRENCY.default,
    PLANT_STORE_SANDBOX_IDLE_SECONDS: LOCAL_ENVIRONMENT.PLANT_STORE_SANDBOX_IDLE_SECONDS.default,
    PLANT_STORE_WEBHOOK_RETRY_SCALE: LOCAL_ENVIRONMENT.PLANT_STORE_WEBHOOK_RETRY_SCALE.default,
  });
  const inspect = optionsFromEnvironment({}, { inspect: true }, () => undefined);
  expect(inspect.inspectFirstPort).toBe(LOCAL_ENVIRONMENT.PLANT_STORE_INSPECT_PORT.default);
});

it('the command line takes exactly the flags defined, a value where the definition says', () => {
  for (const [flag, spec] of Object.entries(START_FLAGS)) {
    const argv = 'value' in spec ? [flag, '7'] : [flag];
    expect(parseCommandLine(argv, START_OPTIONS).values).toEqual({
      [flag.slice(2)]: 'value' in spec ? '7' : true,
    });
  }
  expect(Object.keys(START_OPTIONS).map((name) => `--${name}`)).toEqual(Object.keys(START_FLAGS));
  const throttled = optionsFromEnvironment({}, { throttle: true }, () => undefined);
  expect(throttled.throttle).toEqual({
    rateLimit: START_FLAGS['--throttle-rate'].default,
    burstLimit: START_FLAGS['--throttle-burst'].default,
  });
});
