/**
 * Resident memory of a process tree (Linux `/proc`), each process named by its role in
 * `npm start`: npm, the tsx wrapper, the gateway/runtime, esbuild's service, function sandboxes.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** One process of the tree. */
export interface ProcessMemory {
  readonly pid: number;
  readonly role: string;
  /** Resident set size in MiB. */
  readonly rssMiB: number;
  /**
   * Proportional set size in MiB: pages shared with other processes (the Node binary's code,
   * mapped by every sandbox) counted in part, so the tree's PSS adds up to what it really holds.
   */
  readonly pssMiB: number;
  /** Pages no other process maps, in MiB: what this process alone costs. */
  readonly privateMiB: number;
}

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined; // the process has exited, or this is not Linux
  }
}

/** The role of a process from its command line and environment. */
export function roleOf(cmdline: string, environ: string): string {
  const bundle = /PLANT_STORE_BUNDLE=[^\0]*\/([^/\0]+)\/index\.mjs/.exec(environ)?.[1];
  if (bundle) return `sandbox ${bundle}`;
  if (/(?:^|\/)esbuild\0--service/.test(cmdline)) return 'esbuild service';
  if (/^npm(?:[\0 ]|$)|npm-cli\.js/.test(cmdline)) return 'npm';
  if (/\/\.bin\/tsx\0|tsx\/dist\/cli\.m?js/.test(cmdline)) return 'tsx wrapper';
  if (/(?:^|\0)(?:sh|bash)\0-c\0/.test(cmdline)) return 'shell';
  // npm start's own process, told by its entry: the paths before it (its Node's, the project's)
  // may name a worker.
  if (/\0bin\/local\.ts(?:\0|$)/.test(cmdline)) return 'gateway/runtime';
  if (/sandbox|worker/.test(cmdline)) return 'sandbox';
  return 'gateway/runtime';
}

/**
 * Each live process of the tree rooted at `root`, root first: its pid, its role and the fields of
 * its `/proc/<pid>/stat` line after the command name (which may hold spaces): state, ppid, ...
 */
export function processesOf(root: number): { pid: number; role: string; stat: string[] }[] {
  const children = new Map<number, number[]>();
  const stats = new Map<number, string[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = read(`/proc/${entry}/stat`);
    if (!stat) continue;
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    stats.set(Number(entry), fields);
    const ppid = Number(fields[1]);
    children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
  }
  const found: { pid: number; role: string; stat: string[] }[] = [];
  const visit = (pid: number) => {
    const stat = stats.get(pid);
    if (stat) {
      const role = roleOf(read(`/proc/${pid}/cmdline`) ?? '', read(`/proc/${pid}/environ`) ?? '');
      found.push({ pid, role, stat });
    }
    for (const child of children.get(pid) ?? []) visit(child);
  };
  visit(root);
  return found;
}

/** Every live process of the tree rooted at `root`, with its role and RSS. */
export function processTree(root: number): ProcessMemory[] {
  return processesOf(root).flatMap(({ pid, role }) => {
    const status = read(`/proc/${pid}/status`);
    const rssKiB = Number(/VmRSS:\s+(\d+)/.exec(status ?? '')?.[1] ?? NaN);
    if (!Number.isFinite(rssKiB)) return [];
    const rollup = read(`/proc/${pid}/smaps_rollup`) ?? '';
    const kib = (field: string) =>
      Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(rollup)?.[1] ?? NaN);
    return [
      {
        pid,
        role,
        rssMiB: rssKiB / 1024,
        pssMiB: kib('Pss') / 1024,
        privateMiB: (kib('Private_Clean') + kib('Private_Dirty')) / 1024,
      },
    ];
  });
}

/** The largest RSS each process reached over several samples. */
export class PeakMemory {
  private readonly peaks = new Map<number, ProcessMemory>();

  /** Takes one sample of the tree. */
  sample(root: number): void {
    for (const process of processTree(root)) {
      const seen = this.peaks.get(process.pid);
      if (!seen || seen.rssMiB < process.rssMiB) this.peaks.set(process.pid, process);
    }
  }

  /** One line per role (sandboxes each on their own) and the two totals the goals name. */
  report(): string[] {
    const all = [...this.peaks.values()].sort((a, b) => a.role.localeCompare(b.role));
    const sandboxes = all.filter((p) => p.role.startsWith('sandbox'));
    const own = all.filter((p) => !p.role.startsWith('sandbox'));
    const sum = (xs: number[]) => xs.reduce((total, x) => total + x, 0);
    const rss = (xs: ProcessMemory[]) => sum(xs.map((p) => p.rssMiB));
    const pss = (xs: ProcessMemory[]) => sum(xs.map((p) => p.pssMiB));
    return [
      ...all.map(
        (p) =>
          `    ${p.role} (pid ${p.pid}): ${p.rssMiB.toFixed(1)} MiB (PSS ${p.pssMiB.toFixed(1)}, private ${p.privateMiB.toFixed(1)})`,
      ),
      `    runtime's own processes (all but the sandboxes): ${rss(own).toFixed(1)} MiB (goal ≤ 250); largest sandbox ${Math.max(0, ...sandboxes.map((p) => p.rssMiB)).toFixed(1)} MiB (goal ≤ 64); whole tree ${rss(all).toFixed(1)} MiB`,
      `    PSS (shared pages counted once across the tree): runtime's own ${pss(own).toFixed(1)} MiB, sandboxes ${pss(sandboxes).toFixed(1)} MiB, whole tree ${pss(all).toFixed(1)} MiB`,
    ];
  }
}
