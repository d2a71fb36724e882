/**
 * `npm run db`: the embedded engine alone, with the tables and the webhook queues on its port,
 * for `sam local` and the token and webhook CLIs.
 * Port `PLANT_STORE_DB_PORT` (8000), data in `PLANT_STORE_DATA_DIR/db` or `--memory`.
 */
import { join } from 'node:path';
import { parseCommandLine } from '../lib/cli/args';
import { runCli } from '../lib/cli/run';
import { lockDataDir } from '../lib/local/process/data-lock';
import { makePrivate, PRIVATE_UMASK } from '../lib/local/process/private-dir';
import { LOOPBACK_HOST_NAMES } from '../lib/local/dynamodb/engine';
import { DB_HELP, optionsFromEnvironment } from '../lib/local/process/options';
import { recordPorts } from '../lib/local/process/ports-file';
import { startEngineWithQueues } from '../lib/local/webhooks';
import { openLocalAccount } from '../lib/local/iam/account';
import { operatorFile } from '../lib/local/iam/identities';
import { writeSamProfiles } from '../lib/local/iam/sam-profiles';
import { sealPlainSecrets } from '../lib/local/kms/seal-plain-secrets';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
// The data directory is private (lib/local/process/private-dir.ts): so is all the process creates in it.
process.umask(PRIVATE_UMASK);

runCli(
  'npm run db',
  async (argv, io) => {
    const { values, help } = parseCommandLine(argv, {
      memory: { type: 'boolean' },
    });
    if (help) {
      process.stdout.write(DB_HELP);
      return 0;
    }
    const options = optionsFromEnvironment(process.env, values, () => undefined);
    const dataDir = options.memory ? undefined : join(options.dataDir, 'db');
    let unlock: () => Promise<void> = async () => undefined;
    // The operator's keys live in the data directory even with --memory: the CLIs (and sam
    // local's functions) sign with them, and the engine refuses any other signer.
    await makePrivate(options.dataDir);
    if (dataDir) unlock = await lockDataDir(options.dataDir);
    const log = (line: string) => process.stderr.write(`${line}\n`);
    const account = await openLocalAccount({ dataDir: options.dataDir, log }).catch(
      async (error: unknown) => {
        await unlock();
        throw error;
      },
    );
    const engine = await startEngineWithQueues({
      port: options.dbPort,
      dataDir,
      account,
      // sam local's containers reach this engine by that name (see README, sam local).
      hostNames: [...LOOPBACK_HOST_NAMES, 'host.docker.internal'],
    }).catch(async (error) => {
      await unlock();
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
      throw new Error(
        `port ${options.dbPort} is in use (another npm start or npm run db?); set PLANT_STORE_DB_PORT to a free port, or 0 to pick one`,
      );
    });
    await sealPlainSecrets(engine, log);
    // sam local's functions: each signs as a session of its own role (--profile <function>).
    const profiles = await writeSamProfiles(account, options.dataDir);
    // For the CLIs in another terminal (lib/local/process/ports-file.ts); with --memory there is no
    // data directory, and the CLIs need PLANT_STORE_DB_PORT.
    const forgetPorts = dataDir
      ? await recordPorts(options.dataDir, { dbPort: engine.port })
      : async () => undefined;
    process.stdout.write(
      `DynamoDB-compatible engine on ${engine.endpoint} (${dataDir ? `data in ${dataDir}` : 'in memory'}), with the webhook queues (in memory) and KMS; operator keys in ${operatorFile(options.dataDir)}, the functions' in ${profiles}\n`,
    );
    // Serves until SIGINT or SIGTERM (the CLI convention's stop, set before this banner, which
    // scripts wait for); then the port closes and the lock goes, and the process exits 0.
    await new Promise((resolve) =>
      io.signal!.aborted ? resolve(undefined) : io.signal!.addEventListener('abort', resolve),
    );
    await forgetPorts();
    await engine.close();
    await unlock();
    return 0;
  },
  { stoppable: true },
);
