/**
 * Watches a directory tree by watching each of its directories. Node's recursive `fs.watch` on
 * Linux follows inodes: once an editor or git replaces a file by renaming another over it (vim,
 * JetBrains, `sed -i`, `git checkout`), later saves of that file go unseen. A directory's own
 * watcher reports every name that changes in it, whatever the inode, so this is what editors'
 * and git's saves need. A directory created, removed or renamed makes the tree be listed again.
 * (chokidar does the same per-directory watching; a few lines here spare a dependency.)
 */
import { watch, type FSWatcher } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

/** A watched tree; `close` stops every watcher. */
export interface TreeWatcher {
  close(): void;
}

/**
 * Calls `onChange` with the absolute path of each name that changed (a file saved, created,
 * deleted or renamed; a directory created, removed or renamed) anywhere under `root`.
 */
export async function watchTree(
  root: string,
  onChange: (path: string) => void,
): Promise<TreeWatcher> {
  const watchers = new Map<string, FSWatcher>();
  let closed = false;
  let listing: Promise<void> = Promise.resolve();

  const directories = async (dir: string, found: string[]): Promise<string[]> => {
    found.push(dir);
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (entry.isDirectory()) await directories(join(dir, entry.name), found);
    }
    return found;
  };

  /** Watches every directory of the tree now, and stops watching those that are gone. */
  const relist = () =>
    (listing = listing.then(async () => {
      if (closed) return;
      const now = new Set(await directories(root, []));
      for (const [dir, watcher] of watchers) {
        if (now.has(dir)) continue;
        watcher.close();
        watchers.delete(dir);
      }
      for (const dir of now) {
        if (watchers.has(dir) || closed) continue;
        try {
          const watcher = watch(dir, (event, filename) => {
            if (filename) onChange(join(dir, filename.toString()));
            // A rename in a directory may be a directory appearing or going away.
            if (event === 'rename') relist();
          });
          // The directory was removed under the watcher: the next listing forgets it.
          watcher.on('error', () => relist());
          watchers.set(dir, watcher);
        } catch {
          // Gone between the listing and the watch; the event that removed it relists.
        }
      }
    }));

  await relist();
  return {
    close() {
      closed = true;
      for (const watcher of watchers.values()) watcher.close();
      watchers.clear();
    },
  };
}
