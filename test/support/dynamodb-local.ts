/**
 * AWS's own DynamoDB Local, for the suites that must also hold on the real engine's semantics
 * (it returns the old item on a failed condition; dynalite does not). Its jar ships inside the
 * npm package amplify-dynamodb-simulator; only that folder is unpacked, once, into
 * node_modules/.cache. Needs `java` on the PATH.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createTables, LOCAL_CREDENTIALS, LOCAL_REGION, type Engine } from '../../lib/local/engine';
import { TABLES } from '../../lambda/shared/tables';
import { freePort } from '../../lib/local/free-port';

const ROOT = join(__dirname, '../..');
const PACKAGE = 'amplify-dynamodb-simulator@2.9.30';
const CACHE = join(ROOT, 'node_modules', '.cache', 'dynamodb-local');

/** True when a JVM is available to run DynamoDB Local. */
export const javaAvailable = spawnSync('java', ['-version']).status === 0;

function ensureJar(): string {
  if (existsSync(join(CACHE, 'DynamoDBLocal.jar'))) return CACHE;
  const work = mkdtempSync(join(ROOT, 'node_modules', '.cache-dynamodb-local-'));
  try {
    const tarball = execFileSync('npm', ['pack', PACKAGE, '--silent', '--pack-destination', work], {
      cwd: work,
      encoding: 'utf8',
    }).trim();
    execFileSync('tar', ['xzf', join(work, tarball), '-C', work, 'package/emulator']);
    mkdirSync(dirname(CACHE), { recursive: true });
    if (!existsSync(CACHE)) renameSync(join(work, 'package', 'emulator'), CACHE);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return CACHE;
}

/** Starts DynamoDB Local in memory on a free loopback port, with the project's tables. */
export async function startDynamoDbLocal(): Promise<Engine> {
  const dir = ensureJar();
  const port = await freePort();
  const child = spawn(
    'java',
    [
      `-Djava.library.path=${join(dir, 'DynamoDBLocal_lib')}`,
      '-jar',
      join(dir, 'DynamoDBLocal.jar'),
      '-inMemory',
      '-port',
      String(port),
    ],
    { cwd: dir, stdio: 'ignore' },
  );
  const endpoint = `http://127.0.0.1:${port}`;
  const clientConfig = {
    endpoint,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
    maxAttempts: 1,
  };
  const close = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
  const started = Date.now();
  for (;;) {
    try {
      await createTables(clientConfig, TABLES);
      break;
    } catch (error) {
      if (child.exitCode !== null || Date.now() - started > 30_000) {
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
