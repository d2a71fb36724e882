/**
 * One runtime per data directory: `npm start` and `npm run db` hold `<dataDir>/lock` (the
 * owner's pid) while they run, since two engines on one LevelDB directory break each other.
 */
import { open, readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';

/** Takes the lock or throws one line naming the directory and its owner; returns the release. */
export async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  const file = join(dataDir, 'lock');
  for (let attempt = 0; ; attempt++) {
    try {
      const handle = await open(file, 'wx', 0o600);
      await handle.writeFile(`${process.pid}\n`);
      await handle.close();
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw error;
      const owner = Number((await readFile(file, 'utf8').catch(() => '')).trim());
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && isAlive(owner)) {
        throw new Error(
          `the data directory ${dataDir} is in use by process ${owner} (npm start or npm run db); stop it or set PLANT_STORE_DATA_DIR to another directory`,
          { cause: error },
        );
      }
      // Left by a process that died without cleaning up: take it over.
      await unlink(file).catch(() => undefined);
    }
  }
  return async () => {
    const owner = (await readFile(file, 'utf8').catch(() => '')).trim();
    if (owner === String(process.pid)) await unlink(file).catch(() => undefined);
  };
}

/** Whether process `pid` runs (as anyone). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: alive, owned by someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
