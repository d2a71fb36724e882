/**
 * A real engine (with the webhook queues and KMS) whose operator keys are kept in a data
 * directory of its own, as `npm run db` keeps them: a CLI given `env` finds the engine and signs
 * as the operator, which the engine requires of every caller.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Engine, EngineOptions } from '../../lib/local/dynamodb/engine';
import { openLocalAccount } from '../../lib/local/iam/account';
import { startEngineWithQueues } from '../../lib/local/webhooks';

/** The engine, the environment a CLI reaches it with, and `close`, which also removes the keys. */
export interface OperatorEngine {
  readonly engine: Engine;
  readonly env: { PLANT_STORE_DB_PORT: string; PLANT_STORE_DATA_DIR: string };
  close(): Promise<void>;
}

/** Starts one; `options` go to the engine (`tables: []` for an engine without tables). */
export async function startOperatorEngine(
  options: Omit<EngineOptions, 'account'> = {},
): Promise<OperatorEngine> {
  const dataDir = mkdtempSync(join(tmpdir(), 'plant-store-operator-'));
  const account = await openLocalAccount({ dataDir, log: () => undefined });
  const engine = await startEngineWithQueues({ ...options, account });
  return {
    engine,
    env: { PLANT_STORE_DB_PORT: String(engine.port), PLANT_STORE_DATA_DIR: dataDir },
    async close() {
      await engine.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
