/**
 * `startLocal` (what `npm start` runs) for an e2e suite: on free ports, tables in memory, a
 * temporary data directory; started before the suite's tests and stopped, directory removed,
 * after them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { makeDocumentClient } from '../../lambda/aws/dynamodb';
import { TOKENS_TABLE } from '../../lambda/tokens/table';
import { generateToken, hashToken } from '../../lambda/tokens/token';
import { startLocal, type LocalOptions, type LocalService } from '../../lib/local/runtime';

/** How many of the service's latest log lines `logTail` answers. */
const LOG_TAIL_LINES = 40;

/**
 * The running service of this suite; its fields are readable once `beforeAll` has run.
 * `logTail()` answers its latest log lines, each with the time it was logged, for a failure's
 * message: what the runtime and its functions did just before a wait gave up.
 */
export function useLocalService(
  name: string,
  options: Partial<Omit<LocalOptions, 'dataDir'>> = {},
): LocalService & { readonly dataDir: string; logTail(): string } {
  const dataDir = mkdtempSync(join(tmpdir(), `plant-store-${name}-`));
  let service: LocalService | undefined;
  const tail: string[] = [];
  const log = (line: string) => {
    tail.push(`${new Date().toISOString()} ${line}`);
    if (tail.length > LOG_TAIL_LINES) tail.shift();
    options.log?.(line);
  };
  beforeAll(async () => {
    service = await startLocal({
      port: 0,
      dbPort: 0,
      memory: true,
      authCacheTtlSeconds: 300,
      ...options,
      log,
      dataDir,
    });
  }, 300_000);
  afterAll(async () => {
    await service?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const started = (): LocalService => {
    if (!service) throw new Error('the local service is not started (read it inside a test)');
    return service;
  };
  return {
    dataDir,
    logTail: () => tail.join('\n'),
    get url() {
      return started().url;
    },
    get port() {
      return started().port;
    },
    get dbPort() {
      return started().dbPort;
    },
    get devToken() {
      return started().devToken;
    },
    get engineClientConfig() {
      return started().engineClientConfig;
    },
    get invocations() {
      return started().invocations;
    },
    unusedGrants: () => started().unusedGrants(),
    setEngineAvailable: (available) => started().setEngineAvailable(available),
    close: () => started().close(),
  };
}

/**
 * The environment with which a CLI reaches `service`: its engine's port and its data directory,
 * where the operator's keys are (the engine refuses any other signer).
 */
export function cliEnvironment(service: { readonly dbPort: number; readonly dataDir: string }) {
  return { PLANT_STORE_DB_PORT: String(service.dbPort), PLANT_STORE_DATA_DIR: service.dataDir };
}

/**
 * Sends a request to `service` with its dev token (and a JSON content type when there is a
 * body), through the suite's global `fetch`; answers the status and the body's text.
 */
export async function sendAsDev(
  service: LocalService,
  method: string,
  path: string,
  body?: string,
): Promise<{ status: number; text: string }> {
  const response = await fetch(`${service.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${service.devToken}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body,
  });
  return { status: response.status, text: await response.text() };
}

/**
 * Stores a token in `service`'s tokens table as 1.0.0 and 1.1.0 stored one, without a scopes
 * revision (its scopes mean what they meant then); answers the token.
 */
export async function storeTokenOf110(
  service: LocalService,
  name: string,
  scopes: readonly string[],
): Promise<string> {
  const { token, tokenId } = generateToken();
  const client = makeDocumentClient(service.engineClientConfig);
  try {
    await client.send(
      new PutCommand({
        TableName: TOKENS_TABLE.localName,
        Item: {
          [TOKENS_TABLE.partitionKey.name]: hashToken(token),
          tokenId,
          name,
          scopes: [...scopes],
          createdAt: '2026-01-01T00:00:00.000Z',
        },
      }),
    );
  } finally {
    client.destroy();
  }
  return token;
}
