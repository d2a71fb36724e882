/**
 * The data directory is private: it holds the dev token, the tables (tokens' hashes, webhook
 * secrets) and the bundles, so it and everything under it are readable by their owner only
 * (directories 0700, files 0600), whatever the umask. `npm start` and `npm run db` also set a
 * umask of 077, so that what the engine writes later (LevelDB's files) is created private too.
 */
import { chmod, lstat, mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The mode of a private directory. */
export const PRIVATE_DIR_MODE = 0o700;
/** The mode of a private file. */
export const PRIVATE_FILE_MODE = 0o600;
/** Nothing for the group or others in what the process creates. */
export const PRIVATE_UMASK = 0o077;

/**
 * Creates `dir` if needed and makes it and everything under it private (a data directory made
 * by an earlier version, with the default umask, is fixed here). Symbolic links are left alone.
 */
export async function makePrivate(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const walk = async (path: string): Promise<void> => {
    const stat = await lstat(path).catch(() => undefined);
    if (!stat || stat.isSymbolicLink()) return;
    if (stat.isDirectory()) {
      if ((stat.mode & 0o777) !== PRIVATE_DIR_MODE) await chmod(path, PRIVATE_DIR_MODE);
      const names = await readdir(path).catch(() => []);
      await Promise.all(names.map((name) => walk(join(path, name))));
    } else if ((stat.mode & 0o777 & ~PRIVATE_FILE_MODE) !== 0) {
      await chmod(path, stat.mode & PRIVATE_FILE_MODE);
    }
  };
  await walk(dir);
}

/**
 * Writes `file` whole, private from its creation: a new file created 0600 (`wx`: never one left
 * over, whose mode would stay), then renamed over `file`, so that no reader sees it half written
 * or with another mode.
 */
export async function writePrivateFile(file: string, contents: string): Promise<void> {
  const temporary = `${file}.${process.pid}.tmp`;
  await rm(temporary, { force: true });
  await writeFile(temporary, contents, { mode: PRIVATE_FILE_MODE, flag: 'wx' });
  await rename(temporary, file);
}
