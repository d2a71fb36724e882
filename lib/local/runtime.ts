/**
 * The whole service on one machine: the same bundles the stack deploys, each in its own
 * process, behind the emulated HTTP API, on the embedded engine. `npm start` runs this.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { makeDocumentClient } from '../../lambda/shared/dynamodb';
import { TOKENS_TABLE } from '../../lambda/shared/tables';
import { ALL_SCOPES, TOKEN_FORMAT, generateToken, tokenItem } from '../../lambda/shared/tokens';
import { API } from '../api';
import { buildFunctions } from '../build';
import { FUNCTIONS, tableEnvironment, type FunctionName } from '../functions';
import { LOCAL_CREDENTIALS, LOCAL_REGION, startEngine } from './engine';
import { FunctionHost } from './function-host';
import { Gateway } from './gateway';
import { functionLog } from './log-format';
import { DEFAULT_DB_PORT, DEFAULT_PORT, envInteger } from './settings';

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
  readonly log: (line: string) => void;
}

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
  args: readonly string[],
  log: (line: string) => void,
): LocalOptions {
  const unknown = args.filter((arg) => arg !== '--memory');
  if (unknown.length > 0)
    throw new Error(`unknown argument ${unknown[0]}; the only one is --memory`);
  return {
    port: envInteger(env, 'PORT', DEFAULT_PORT, 65535),
    dbPort: envInteger(env, 'PLANT_STORE_DB_PORT', DEFAULT_DB_PORT, 65535),
    dataDir: resolve(env.PLANT_STORE_DATA_DIR || '.plant-store'),
    memory: args.includes('--memory'),
    authCacheTtlSeconds: envInteger(
      env,
      'PLANT_STORE_AUTH_CACHE_TTL',
      API.authorizer.defaultCacheTtlSeconds,
      3600,
    ),
    devToken: env.PLANT_STORE_DEV_TOKEN || undefined,
    log,
  };
}

/** Builds the bundles, starts the engine, the functions and the gateway. */
export async function startLocal(options: LocalOptions): Promise<LocalService> {
  await mkdir(options.dataDir, { recursive: true });
  const [built, engine] = await Promise.all([
    // Per data directory, so that two runtimes never write the same bundle files at once.
    buildFunctions(join(options.dataDir, 'functions')),
    startEngine({
      port: options.dbPort,
      dataDir: options.memory ? undefined : join(options.dataDir, 'db'),
    }),
  ]);
  const environment = (name: FunctionName): Record<string, string> => ({
    AWS_REGION: LOCAL_REGION,
    AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
    AWS_ENDPOINT_URL_DYNAMODB: engine.endpoint,
    AWS_LAMBDA_FUNCTION_NAME: name,
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    // Only the tables the function declares, as the stack passes them.
    ...tableEnvironment(name, (_, table) => table.localName),
  });
  const hosts = new Map(
    built.map((fn) => [
      fn.name,
      new FunctionHost({
        name: fn.name,
        bundle: fn.file,
        environment: environment(fn.name),
        timeoutSeconds: FUNCTIONS[fn.name].timeoutSeconds,
        log: functionLog(fn.name, options.log),
      }),
    ]),
  );
  const gateway = new Gateway({
    api: API,
    authCacheTtlSeconds: options.authCacheTtlSeconds,
    log: options.log,
    invoke: (name, event) => hosts.get(name)!.invoke(event),
  });
  const stop = async () => {
    await gateway.close();
    await Promise.all([...hosts.values()].map((host) => host.stop()));
    await engine.close();
  };
  try {
    const [devToken] = await Promise.all([
      ensureDevToken(options, engine.clientConfig),
      ...[...hosts.values()].map((host) => host.start()),
    ]);
    const port = await gateway.listen(options.port);
    return {
      url: `http://127.0.0.1:${port}`,
      port,
      dbPort: engine.port,
      devToken,
      close: stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

const DEV_TOKEN_ID = 'tok_dev';

/**
 * Makes the dev token valid with every scope: `PLANT_STORE_DEV_TOKEN` if set, else the one kept
 * in `dataDir/dev-token` (mode 0600), created on first start.
 */
async function ensureDevToken(
  options: LocalOptions,
  clientConfig: Parameters<typeof makeDocumentClient>[0],
): Promise<string> {
  let token = options.devToken;
  if (token !== undefined && !TOKEN_FORMAT.test(token)) {
    throw new Error('PLANT_STORE_DEV_TOKEN must be pst_ followed by 43 base64url characters');
  }
  const file = join(options.dataDir, 'dev-token');
  if (token === undefined) {
    token = (await readFile(file, 'utf8').catch(() => '')).trim();
    if (!TOKEN_FORMAT.test(token)) {
      token = generateToken().token;
      await writeFile(file, `${token}\n`, { mode: 0o600 });
    }
    await chmod(file, 0o600);
  }
  const client = makeDocumentClient(clientConfig);
  try {
    await client.send(
      new PutCommand({
        TableName: TOKENS_TABLE.localName,
        Item: tokenItem(token, DEV_TOKEN_ID, { name: 'dev', scopes: ALL_SCOPES }),
      }),
    );
  } finally {
    client.destroy();
  }
  return token;
}
