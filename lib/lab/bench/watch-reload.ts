/**
 * Save-to-new-answer time of `npm start`'s watch mode, measured on a temporary copy of the
 * project (the real tree is never edited): the runtime runs there, a message in a function's
 * source is changed the ways editors and git save — in place, a new file renamed over the old
 * (vim, JetBrains, `sed -i`, `git checkout`), deleted and created — and the clock stops at the
 * first answer that carries the new message.
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { rename, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { PROJECT_ROOT } from '../../definitions/bundling';
import { untilRecorded } from '../../npm-start/find';
import { spawnOnFreePorts, type NpmStart } from '../../npm-start/spawn';

/** The text edited: part of create-plant's answer to a body that is not JSON. */
const MESSAGE = 'must be valid JSON';
/** Not copied: installed, generated or local state. */
const SKIPPED = new Set(['node_modules', '.git', 'cdk.out', 'dist', '.plant-store', 'coverage']);

/**
 * A temporary copy of the project (sources only; `node_modules` linked) for running and editing
 * without touching the real tree. The caller removes it.
 */
export function copyProject(prefix = 'plant-store-copy-'): string {
  const copy = mkdtempSync(join(tmpdir(), prefix));
  cpSync(PROJECT_ROOT, copy, {
    recursive: true,
    filter: (source) => !SKIPPED.has(relative(PROJECT_ROOT, source).split(/[\\/]/)[0]!),
  });
  symlinkSync(join(PROJECT_ROOT, 'node_modules'), join(copy, 'node_modules'), 'dir');
  return copy;
}

/** How a save reaches the disk. */
const SAVES = {
  'in place': (file: string, text: string) => writeFile(file, text),
  'rename over': async (file: string, text: string) => {
    await writeFile(`${file}.saving~`, text);
    await rename(`${file}.saving~`, file);
  },
  'delete + create': async (file: string, text: string) => {
    await unlink(file);
    await writeFile(file, text);
  },
} as const;

/** One save: how it was written, and the ms from the save to the first answer carrying it. */
export interface WatchSave {
  readonly kind: keyof typeof SAVES;
  readonly ms: number;
}

/**
 * Runs `npm start` (watch mode) on a copy and saves `rounds` times each way, the ways in turn
 * (so a rename never follows only renames); returns every save's time.
 */
export async function benchWatchReload(rounds = 3): Promise<WatchSave[]> {
  const copy = copyProject('plant-store-watch-bench-');
  let running: NpmStart | undefined;
  try {
    const source = findSource(join(copy, 'lambda'));
    const original = readFileSync(source, 'utf8');
    const dataDir = join(copy, '.plant-store');
    const started = await spawnOnFreePorts(dataDir, ['--memory'], copy);
    running = started;
    // The dev token from its file: the banner never prints it.
    const token = await untilRecorded(dataDir, () => started.child.exitCode !== null);
    const ask = async () => {
      const response = await fetch(`${started.url}/plants`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: '{',
      });
      return response.text();
    };
    if (!(await ask()).includes(MESSAGE)) throw new Error(`the answer does not say ${MESSAGE}`);
    const times: WatchSave[] = [];
    const kinds = Object.keys(SAVES) as (keyof typeof SAVES)[];
    for (let i = 1; i <= rounds * kinds.length; i++) {
      const kind = kinds[(i - 1) % kinds.length]!;
      const marker = `${MESSAGE} [save ${i}]`;
      const saved = performance.now();
      await SAVES[kind](source, original.replaceAll(MESSAGE, marker));
      for (;;) {
        if ((await ask()).includes(marker)) break;
        if (performance.now() - saved > 30_000) {
          throw new Error(`save ${i} (${kind}) not served in 30 s`);
        }
      }
      times.push({ kind, ms: performance.now() - saved });
      // Let the old sandboxes retire before the next save, as between two real edits.
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    return times;
  } finally {
    await running?.stop();
    rmSync(copy, { recursive: true, force: true });
  }
}

/** The file under `dir` whose text holds `MESSAGE`. */
function findSource(dir: string): string {
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    const file = join(entry.parentPath, entry.name);
    if (readFileSync(file, 'utf8').includes(MESSAGE)) return file;
  }
  throw new Error(`no source under ${dir} says ${MESSAGE}`);
}
