/**
 * `npm run db`: the embedded engine alone, with the tables, for `sam local` and the token CLI.
 * Port `PLANT_STORE_DB_PORT` (8000), data in `PLANT_STORE_DATA_DIR/db` or `--memory`.
 */
import { resolve, join } from 'node:path';
import { startEngine } from '../lib/local/engine';
import { optionsFromEnvironment } from '../lib/local/runtime';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

async function main(): Promise<void> {
  const options = optionsFromEnvironment(process.env, process.argv.slice(2), () => undefined);
  const dataDir = options.memory ? undefined : join(resolve(options.dataDir), 'db');
  const engine = await startEngine({ port: options.dbPort, dataDir });
  process.stdout.write(
    `DynamoDB-compatible engine on ${engine.endpoint} (${dataDir ? `data in ${dataDir}` : 'in memory'})\n`,
  );
  const stop = () => void engine.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`db failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
