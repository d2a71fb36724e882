/**
 * What a request costs `npm start` in CPU time, by process role: the runtime (gateway, engine,
 * IAM, the pools) and each function's sandboxes, under a fixed number of distinct creates at one
 * keep-alive connection and at the load phase's (the authorizer cache off, so it runs on every
 * request). CPU time (Linux `/proc/<pid>/stat`, user + system) holds on a busy machine where
 * requests a second do not: other processes slow each request's wall time, not the work it takes.
 * `--write-measurements` records each role's mean over the runs at both, unless a request failed.
 */
import { join } from 'node:path';
import { untilRecorded } from '../../npm-start/find';
import { freePort } from '../../npm-start/in-process';
import { spawnNpmStart } from '../../npm-start/spawn';
import { measuredHere } from '../measurements';
import {
  CONNECTIONS,
  distinctCreates,
  shownRates,
  unanswered,
  untilReady,
  warmUp,
  WARM_UP_SECONDS,
} from './load';
import { mean, recordFigures } from './measure';
import { processesOf } from './memory';
import type { BenchContext, BenchPhase } from './phase';

/** Linux's clock ticks a second (USER_HZ), the unit of `/proc/<pid>/stat`'s CPU times. */
const TICKS_PER_SECOND = 100;

/** Creates per figure. */
const REQUESTS = 1_500;

/** Creates before each figure, at its number of connections. */
const WARM_UP_REQUESTS = 300;

/** Figures at each number of connections. */
const RUNS = 2;

/** The numbers of connections, in the order the figures are taken: each alternates with the other. */
const ROUNDS = Array.from({ length: RUNS }, () => [1, CONNECTIONS]).flat();

/** The CPU time (ms) of every process of the tree rooted at `root`, by pid, with its role. */
export function cpuOfTree(root: number): Map<number, { role: string; ms: number }> {
  return new Map(
    processesOf(root).map(({ pid, role, stat }) => {
      // utime and stime, the 14th and 15th fields of the line.
      const ticks = Number(stat[11]) + Number(stat[12]);
      return [pid, { role, ms: (ticks * 1000) / TICKS_PER_SECOND }];
    }),
  );
}

/** Each role's CPU time a request (ms), and every sandbox's together. */
export interface CpuFigure {
  readonly sandboxes: number;
  readonly roles: ReadonlyMap<string, number>;
}

/**
 * The CPU a request of each role between two readings, the sandboxes that did work, started and
 * exited (an exited one's time since the first reading is not counted: it shows as a count).
 */
function perRequest(
  before: Map<number, { role: string; ms: number }>,
  after: Map<number, { role: string; ms: number }>,
  requests: number,
): CpuFigure & { working: number; started: number; exited: number } {
  const roles = new Map<string, number>();
  let sandboxes = 0;
  let working = 0;
  let started = 0;
  for (const [pid, { role, ms }] of after) {
    const used = (ms - (before.get(pid)?.ms ?? 0)) / requests;
    roles.set(role, (roles.get(role) ?? 0) + used);
    if (role.startsWith('sandbox')) {
      sandboxes += used;
      if (used > 0) working++;
      if (!before.has(pid)) started++;
    }
  }
  const exited = [...before].filter(
    ([pid, { role }]) => role.startsWith('sandbox') && !after.has(pid),
  ).length;
  return { roles, sandboxes, working, started, exited };
}

/** A thousandth of a millisecond, kept so that the page's ratios come from unrounded means. */
const ms3 = (ms: number) => Math.round(ms * 1000) / 1000;

/**
 * The means of the runs at one number of connections, the busiest role first; a role that did no
 * work in a run counts 0 there, and one that did none in any is left out (npm's and tsx's
 * wrappers).
 */
export function meanOf(runs: readonly CpuFigure[]): {
  sandboxes: number;
  roles: Record<string, number>;
} {
  const roles = new Set(runs.flatMap((run) => [...run.roles.keys()]));
  const of = (pick: (run: CpuFigure) => number) => ms3(mean(runs.map(pick)));
  return {
    sandboxes: of((run) => run.sandboxes),
    roles: Object.fromEntries(
      [...roles]
        .map((role) => [role, of((run) => run.roles.get(role) ?? 0)] as const)
        .filter(([, ms]) => ms > 0)
        .sort(([, a], [, b]) => b - a),
    ),
  };
}

/** A figure for the report: every sandbox, then each role that worked, two decimals each. */
const shown = (figure: { sandboxes: number; roles: Iterable<[string, number]> }) =>
  [
    `sandboxes ${figure.sandboxes.toFixed(2)}`,
    ...[...figure.roles]
      .filter(([, ms]) => ms > 0)
      .sort(([, a], [, b]) => b - a)
      .map(([role, ms]) => `${role} ${ms.toFixed(2)}`),
  ].join(', ');

/** The phase. */
export const cpuPerRequest: BenchPhase = {
  name: 'cpu',
  description: "npm start's CPU per request by process (runtime, each function's sandboxes)",
  records: 'cpu',
  async run({ dir, lambdaNode, print, fail, writeMeasurements }: BenchContext) {
    const dataDir = join(dir, 'cpu-data');
    const port = await freePort();
    const npmStart = spawnNpmStart({
      env: {
        PORT: String(port),
        PLANT_STORE_DB_PORT: String(await freePort()),
        PLANT_STORE_DATA_DIR: dataDir,
        PLANT_STORE_AUTH_CACHE_TTL: '0',
      },
      measured: true,
    });
    const url = `http://127.0.0.1:${port}`;
    try {
      await untilRecorded(dataDir, () => npmStart.child.exitCode !== null);
      const token = await untilReady(url, npmStart.child, dataDir);
      let id = Date.now() * 1000;
      const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      const body = () => `{"id":${id++},"name":"Cpu","tag":"bench"}`;
      let failed = 0;
      const creates = async (connections: number, amount: number) => {
        const result = await distinctCreates(url, headers, body, { connections, amount });
        failed += unanswered(result);
        return result;
      };
      // The pools grow to what the load needs and their code tiers up first (`warmUp`), and each
      // figure follows a run of its own load.
      const warm = await warmUp(url, headers, body);
      failed += warm.failed;
      print(
        `npm start's CPU per request (${REQUESTS} distinct creates per figure, authorizer cache off, CPU time of each process of its tree; ms a request):`,
      );
      print(`  warm-up at ${CONNECTIONS} connections, each window: ${shownRates(warm.rates)}`);
      const taken = new Map<number, CpuFigure[]>();
      for (const connections of ROUNDS) {
        await creates(connections, WARM_UP_REQUESTS);
        const before = cpuOfTree(npmStart.child.pid!);
        const failedBefore = failed;
        const result = await creates(connections, REQUESTS);
        const figure = perRequest(before, cpuOfTree(npmStart.child.pid!), result.requests.total);
        taken.set(connections, [...(taken.get(connections) ?? []), figure]);
        print(
          `  ${String(connections).padStart(2)} connection${connections === 1 ? ' ' : 's'}: ${shown(figure)} (${figure.working} sandboxes at work, ${figure.started} started, ${figure.exited} exited); ${failed - failedBefore} failed`,
        );
      }
      const [atOne, atLoad] = [meanOf(taken.get(1)!), meanOf(taken.get(CONNECTIONS)!)];
      const ratio = (one: number, load: number) => (one > 0 ? `${(load / one).toFixed(2)}×` : '–');
      print(
        `  means of the ${RUNS} runs, ${CONNECTIONS} connections / 1: every sandbox ${ratio(atOne.sandboxes, atLoad.sandboxes)}, ${Object.entries(
          atLoad.roles,
        )
          .map(([role, ms]) => `${role} ${ratio(atOne.roles[role] ?? 0, ms)}`)
          .join(', ')}; ${failed} requests failed in all\n`,
      );
      recordFigures(
        { writeMeasurements, print, fail },
        'cpu',
        () => ({
          // npm start runs on the Node its functions do (its script: NPM_START_NODE).
          ...measuredHere('npm run bench -- --phases cpu', lambdaNode.path),
          requests: REQUESTS,
          runs: RUNS,
          connections: CONNECTIONS,
          warmUpSeconds: WARM_UP_SECONDS,
          atOne,
          atLoad,
        }),
        failed,
      );
    } finally {
      await npmStart.stop();
    }
  },
};
