/**
 * The whole service on one machine: the same bundles the stack deploys, each function a pool of
 * sandboxes on Lambda's Node, behind the emulated HTTP API, on the embedded engine; in watch mode
 * a saved change is served on the next request. `npm start` runs this.
 */
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { TOKEN_FORMAT } from '../../lambda/shared/tokens';
import { API, type ApiDefinition } from '../definitions/api';
import { UsageError } from '../cli-args';
import {
  FUNCTIONS,
  FUNCTION_NAMES,
  tableEnvironment,
  type FunctionName,
} from '../definitions/functions';
import { lambdaNode } from '../definitions/lambda-node';
import { lockDataDir } from './data-lock';
import { ensureDevToken } from './dev-token';
import { docsPages } from './docs-pages';
import { LOCAL_CREDENTIALS, LOCAL_REGION, startEngine, type Engine } from './engine';
import { Gateway } from './gateway';
import { functionLog } from './log-format';
import { SandboxPool } from './sandbox/pool';
import { DEFAULT_CONCURRENCY, DEFAULT_DB_PORT, DEFAULT_PORT, envInteger } from './settings';
import { buildBundles, loadApi, type Bundles } from './watch';

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
  readonly log: (line: string) => void;
}

/** `npm start`'s options, for `lib/cli-args.ts`. */
export const START_OPTIONS = {
  memory: { type: 'boolean' },
  'no-watch': { type: 'boolean' },
} as const;

/** `npm start -- --help`. */
export const START_HELP = `Usage: npm start [-- [--memory] [--no-watch]]

Runs Plant Store on this machine: the deployed function bundles, each function a pool of
sandboxes on Lambda's Node, behind an emulated HTTP API, on an embedded DynamoDB engine.

Options:
  --memory     tables in memory, gone on exit (default: in $PLANT_STORE_DATA_DIR/db)
  --no-watch   do not rebuild on change (default: a saved change under lambda/ is rebuilt
               and served by new sandboxes; a change to lib/definitions/api.ts restarts the gateway)
  --help       this text

Settings (environment variables):
  PORT                        HTTP port on 127.0.0.1 (default ${DEFAULT_PORT}; 0 picks a free one)
  PLANT_STORE_DB_PORT         engine port (default ${DEFAULT_DB_PORT}; 0 picks a free one)
  PLANT_STORE_DATA_DIR        data, bundles and the dev token (default .plant-store)
  PLANT_STORE_DEV_TOKEN       a pst_ token to make valid with every scope
  PLANT_STORE_AUTH_CACHE_TTL  seconds an authorizer decision is cached (default ${API.authorizer.defaultCacheTtlSeconds}; 0 = off)
  PLANT_STORE_CONCURRENCY     sandboxes per function at once (default ${DEFAULT_CONCURRENCY}); more are throttled
`;

/** A running local service. */
export interface LocalService {
  readonly url: string;
  readonly port: number;
  readonly dbPort: number;
  readonly devToken: string;
  /** Stops taking requests, finishes those in flight, stops the functions and the engine. */
  close(): Promise<void>;
}

/** Reads the documented environment variables, failing on a malformed one by name. */
export function optionsFromEnvironment(
  env: NodeJS.ProcessEnv,
  values: { readonly memory?: unknown; readonly 'no-watch'?: unknown },
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
    return {
      port: envInteger(env, 'PORT', DEFAULT_PORT, 65535),
      dbPort: envInteger(env, 'PLANT_STORE_DB_PORT', DEFAULT_DB_PORT, 65535),
      dataDir: resolve(env.PLANT_STORE_DATA_DIR || '.plant-store'),
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
      log,
    };
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** Builds the bundles, starts the engine, the function sandboxes and the gateway. */
export async function startLocal(options: LocalOptions): Promise<LocalService> {
  await mkdir(options.dataDir, { recursive: true });
  const unlock = await lockDataDir(options.dataDir);
  const node = lambdaNode();
  if (node.notice) options.log(node.notice);
  const pools = new Map<FunctionName, SandboxPool>();
  let gateway: Gateway | undefined;
  let bundles: Bundles | undefined;
  let engine: Engine | undefined;
  let port: number | undefined;
  const makeGateway = (api: ApiDefinition) =>
    new Gateway({
      api,
      authCacheTtlSeconds: options.authCacheTtlSeconds,
      log: options.log,
      invoke: (name, event) => pools.get(name)!.invoke(event),
      localPages: docsPages(),
    });
  /** A new API definition: the gateway closes (finishing its requests) and reopens on `port`. */
  const restartGateway = async () => {
    if (port === undefined) return;
    let api: ApiDefinition;
    try {
      api = await loadApi();
    } catch (error) {
      options.log(
        `[watch] lib/definitions/api.ts: ${(error as Error).message}; the gateway keeps the previous definition`,
      );
      return;
    }
    await gateway?.close();
    gateway = makeGateway(api);
    await gateway.listen(port);
    options.log(`[watch] lib/definitions/api.ts changed: the gateway restarted on port ${port}`);
  };
  const stop = async () => {
    await bundles?.close();
    await gateway?.close();
    await Promise.all([...pools.values()].map((pool) => pool.stop()));
    await engine?.close();
    await unlock();
  };
  try {
    const [builtResult, engineResult] = await Promise.allSettled([
      buildBundles({
        // Per data directory, so that two runtimes never write the same bundle files at once.
        outdir: join(options.dataDir, 'functions'),
        names: FUNCTION_NAMES,
        watch: options.watch ?? false,
        log: options.log,
        onRebuilt: async (name, file) => pools.get(name)?.swap(file),
        onApiChanged: () => restartGateway(),
      }),
      startEngine({
        port: options.dbPort,
        dataDir: options.memory ? undefined : join(options.dataDir, 'db'),
      }).catch((error: unknown) => {
        throw inUse(error, 'PLANT_STORE_DB_PORT', options.dbPort);
      }),
    ]);
    if (builtResult.status === 'fulfilled') bundles = builtResult.value;
    if (engineResult.status === 'fulfilled') engine = engineResult.value;
    if (builtResult.status === 'rejected') throw builtResult.reason;
    if (engineResult.status === 'rejected') throw engineResult.reason;
    const endpoint = engine!.endpoint;
    for (const name of FUNCTION_NAMES) {
      pools.set(
        name,
        new SandboxPool({
          name,
          bundle: bundles!.files.get(name)!,
          environment: {
            AWS_REGION: LOCAL_REGION,
            AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
            AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
            AWS_ENDPOINT_URL_DYNAMODB: endpoint,
            AWS_LAMBDA_FUNCTION_NAME: name,
            AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
            // Only the tables the function declares, as the stack passes them.
            ...tableEnvironment(name, (_, table) => table.localName),
          },
          timeoutSeconds: FUNCTIONS[name].timeoutSeconds,
          memorySize: FUNCTIONS[name].memorySize,
          concurrency: options.concurrency ?? DEFAULT_CONCURRENCY,
          nodePath: node.path,
          log: functionLog(name, options.log),
        }),
      );
    }
    // Before listening: a request that reaches the gateway finds the dev token valid.
    const devToken = await ensureDevToken(options, engine!.clientConfig);
    gateway = makeGateway(API);
    port = await gateway.listen(options.port).catch((error: unknown) => {
      throw inUse(error, 'PORT', options.port);
    });
    await Promise.all([...pools.values()].map((pool) => pool.warm()));
    return {
      url: `http://127.0.0.1:${port}`,
      port,
      dbPort: engine!.port,
      devToken,
      close: stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Turns "address in use" into one line naming the setting to change. */
function inUse(error: unknown, setting: string, port: number): unknown {
  if ((error as NodeJS.ErrnoException | null)?.code !== 'EADDRINUSE') return error;
  return new Error(
    `port ${port} is in use (another npm start or npm run db?); set ${setting} to a free port, or 0 to pick one`,
  );
}
