/**
 * The whole service on one machine: the same bundles the stack deploys, each function a pool of
 * sandboxes on Lambda's Node, behind the emulated HTTP API, on the embedded engine; in watch mode
 * a saved change is served on the next request. `npm start` runs this.
 */
import { join } from 'node:path';
import { API, type ApiDefinition } from '../definitions/api';
import {
  FUNCTIONS,
  FUNCTION_NAMES,
  tableEnvironment,
  type FunctionName,
} from '../definitions/functions';
import { lambdaNode } from '../definitions/lambda-node';
import { lockDataDir } from './process/data-lock';
import { recordPorts } from './process/ports-file';
import { makePrivate } from './process/private-dir';
import { ensureDevToken } from './dev/dev-token';
import { docsPages } from './dev/docs-pages';
import { LOCAL_REGION, startEngine, type LocalEngine } from './dynamodb/engine';
import { openLocalAccount } from './iam/account';
import { sealPlainSecrets } from './kms/seal-plain-secrets';
import { checkPortFree } from './process/free-port';
import { Gateway } from './gateway';
import { TokenBucket } from './gateway/throttle';
import { functionLog } from './dev/log-format';
import type { LocalOptions } from './process/options';
import { withRootHint } from './dev/root-page';
import { SandboxPool } from './lambda/pool';
import { StartGate } from './lambda/start-gate';
import { DEFAULT_CONCURRENCY } from './process/settings';
import { buildBundles, loadApi, type Bundles } from './dev/watch';
import { LocalWebhooks, localWebhookEnvironment } from './webhooks';
import { Invocations } from './dev/invocations';

export type { LocalOptions } from './process/options';

/** A running local service. */
export interface LocalService {
  readonly url: string;
  readonly port: number;
  readonly dbPort: number;
  readonly devToken: string;
  /** SDK settings that reach the engine, its queues and key as the local account's operator. */
  readonly engineClientConfig: LocalEngine['clientConfig'];
  /** The function grants no allowed call has used since the start (`<function> <action> on <arn>`). */
  unusedGrants(): string[];
  /** The invocations, requests and denials of the run, newest last (what the console shows). */
  readonly invocations: Invocations;
  /** With `inspectFirstPort`: each function's inspector port. */
  readonly inspectPorts?: ReadonlyMap<FunctionName, number>;
  /**
   * Takes the engine down (new connections and requests reset, the data kept) or brings it back: the
   * functions then answer 503 as they would to an unreachable DynamoDB, so a client's retries can
   * be tried; `npm start` toggles it on SIGUSR2.
   */
  setEngineAvailable(available: boolean): void;
  /** Stops taking requests, finishes those in flight, stops the functions and the engine. */
  close(): Promise<void>;
}

/**
 * Builds the bundles, starts the engine and the gateway; each function's sandboxes start on
 * demand.
 */
export async function startLocal(options: LocalOptions): Promise<LocalService> {
  await makePrivate(options.dataDir);
  const unlock = await lockDataDir(options.dataDir);
  const node = lambdaNode();
  if (node.notice) options.log(node.notice);
  const inspectPorts = new Map<FunctionName, number>();
  if (options.inspectFirstPort !== undefined) {
    for (const [i, name] of FUNCTION_NAMES.entries()) {
      inspectPorts.set(name, options.inspectFirstPort + i);
    }
  }
  const invocations = new Invocations();
  // Before anything runs: the identities, policies and keys every AWS call is judged by.
  const account = await openLocalAccount({
    dataDir: options.dataDir,
    log: options.log,
    grants: options.grants,
    onDenied: invocations.denied,
  });
  const pools = new Map<FunctionName, SandboxPool>();
  // One gate for every function: a burst starts the authorizer's and the route's sandboxes on
  // the same cores.
  const startGate = new StartGate();
  const webhooks = new LocalWebhooks({
    retryScale: options.webhookRetryScale,
    concurrency: options.concurrency ?? DEFAULT_CONCURRENCY,
    log: options.log,
  });
  // One bucket for the stage, whichever gateway serves it (a restart does not refill it).
  const throttle = options.throttle && new TokenBucket(options.throttle);
  let gateway: Gateway | undefined;
  let bundles: Bundles | undefined;
  let engine: LocalEngine | undefined;
  let port: number | undefined;
  /** Invokes a function once a saved change to it is built and swapped in (watch mode). */
  const invoke = async (name: FunctionName, event: unknown, onStart?: () => void) => {
    await bundles?.settled(name);
    return pools.get(name)!.invoke(event, onStart);
  };
  const makeGateway = (api: ApiDefinition) =>
    new Gateway({
      api,
      authCacheTtlSeconds: options.authCacheTtlSeconds,
      log: options.log,
      invoke,
      localPages: withRootHint(docsPages()),
      throttle,
      debugging: inspectPorts.size > 0,
      onAnswered: invocations.answered,
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
  let forgetPorts: (() => Promise<void>) | undefined;
  const stop = async () => {
    await forgetPorts?.();
    await bundles?.close();
    await gateway?.close();
    await webhooks.close();
    await Promise.all([...pools.values()].map((pool) => pool.stop()));
    await engine?.close();
    await unlock();
  };
  try {
    for (const port of inspectPorts.values()) {
      await checkPortFree(port).catch((error: unknown) => {
        throw inUse(error, 'PLANT_STORE_INSPECT_PORT', port);
      });
    }
    const [builtResult, engineResult] = await Promise.allSettled([
      buildBundles({
        // Per data directory, so that two runtimes never write the same bundle files at once.
        outdir: join(options.dataDir, 'functions'),
        names: FUNCTION_NAMES,
        watch: options.watch ?? false,
        sourceMaps: inspectPorts.size > 0,
        log: options.log,
        onRebuilt: async (name, file) => pools.get(name)?.swap(file),
        onApiChanged: () => restartGateway(),
      }),
      startEngine({
        port: options.dbPort,
        dataDir: options.memory ? undefined : join(options.dataDir, 'db'),
        intercept: webhooks.intercept,
        onItemChange: webhooks.onItemChange,
        account,
        holdIndexBuilds: options.holdIndexBuilds,
      }).catch((error: unknown) => {
        throw inUse(error, 'PLANT_STORE_DB_PORT', options.dbPort);
      }),
    ]);
    if (builtResult.status === 'fulfilled') bundles = builtResult.value;
    if (engineResult.status === 'fulfilled') engine = engineResult.value;
    if (builtResult.status === 'rejected') throw builtResult.reason;
    if (engineResult.status === 'rejected') throw engineResult.reason;
    const endpoint = engine!.endpoint;
    webhooks.attach(endpoint);
    for (const name of FUNCTION_NAMES) {
      pools.set(
        name,
        new SandboxPool({
          name,
          bundle: bundles!.files.get(name)!,
          environment: {
            AWS_REGION: LOCAL_REGION,
            AWS_ENDPOINT_URL_DYNAMODB: endpoint,
            AWS_LAMBDA_FUNCTION_NAME: name,
            AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
            // Only the tables the function declares, as the stack passes them.
            ...tableEnvironment(name, (_, table) => table.localName),
            ...localWebhookEnvironment(name, endpoint, options.webhookRetryScale),
          },
          timeoutSeconds: FUNCTIONS[name].timeoutSeconds,
          memorySize: FUNCTIONS[name].memorySize,
          concurrency: options.concurrency ?? DEFAULT_CONCURRENCY,
          nodePath: node.path,
          log: functionLog(name, options.log, process.env, options.webhookRetryScale),
          idleSeconds: options.idleSeconds,
          inspectPort: inspectPorts.get(name),
          startGate,
          // Each sandbox signs as a session of the function's role, issued for it alone.
          credentials: () => account.sandboxCredentials(name),
          observer: invocations.observer(name),
        }),
      );
    }
    // Before anything delivers: secrets an earlier npm start kept in plain text are sealed.
    await sealPlainSecrets(engine!, options.log);
    // Before listening: every plant a request stores reaches the stream and its subscribers.
    webhooks.start(invoke);
    // Before listening: a request that reaches the gateway finds the dev token valid.
    const devToken = await ensureDevToken(options, engine!.clientConfig);
    gateway = makeGateway(API);
    port = await gateway.listen(options.port).catch((error: unknown) => {
      throw inUse(error, 'PORT', options.port);
    });
    // No sandbox starts ahead (each function's first invocation is a cold start, as on Lambda),
    // but under the inspector, where a debugger attaches to it before the first request.
    if (inspectPorts.size > 0) await Promise.all([...pools.values()].map((pool) => pool.warm()));
    const url = `http://127.0.0.1:${port}`;
    // For the CLIs in another terminal, whatever ports were given (lib/local/process/ports-file.ts).
    forgetPorts = await recordPorts(options.dataDir, { dbPort: engine!.port, url });
    return {
      url,
      port,
      dbPort: engine!.port,
      devToken,
      engineClientConfig: engine!.clientConfig,
      unusedGrants: () => account.unusedGrants(),
      invocations,
      inspectPorts,
      setEngineAvailable: (available) => engine!.setAvailable(available),
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
