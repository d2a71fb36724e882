/**
 * What a request costs `npm start` in CPU time, by process role: the runtime (gateway, engine,
 * IAM, the pools) and each function's sandboxes, under a fixed number of distinct creates at 1
 * and at 16 keep-alive connections (the authorizer cache off, so it runs on every request).
 * CPU time (Linux `/proc/<pid>/stat`, user + system) holds on a busy machine where requests a
 * second do not: other processes slow each request's wall time, not the work it takes.
 * `--write-measurements` records each role's mean over the rounds at each number of connections,
 * unless a request failed.
 */
import autocannon from 'autocannon';
import { join, relative } from 'node:path';
import { PROJECT_ROOT } from '../../definitions/bundling';
import { untilRecorded } from '../../npm-start/find';
import { freePort } from '../../npm-start/in-process';
import { spawnNpmStart } from '../../npm-start/spawn';
import { measuredHere, writeMeasurement } from '../measurements';
import { CONNECTIONS, untilReady } from './load';
import { processesOf } from './memory';
import type { BenchContext, BenchPhase } from './phase';

/** Linux's clock ticks a second (USER_HZ), the unit of `/proc/<pid>/stat`'s CPU times. */
const TICKS_PER_SECOND = 100;

/** Creates per figure: enough that a clock tick (10 ms) is a hundredth of a ms a request. */
const REQUESTS = 1_500;

/** Creates before each figure, at its number of connections. */
const WARM_UP_REQUESTS = 300;

/** The numbers of connections, in the order the figures are taken: each alternates with the other. */
const ROUNDS = [1, CONNECTIONS, 1, CONNECTIONS] as const;

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

/**
 * The CPU per request of each role between two readings, the sandboxes that did work, started
 * and exited (an exited one's time since the first reading is not counted: it shows as a count).
 */
function perRequest(
  before: Map<number, { role: string; ms: number }>,
  after: Map<number, { role: string; ms: number }>,
  requests: number,
) {
  const byRole = new Map<string, number>();
  let sandboxesMs = 0;
  let working = 0;
  let started = 0;
  for (const [pid, { role, ms }] of after) {
    const used = ms - (before.get(pid)?.ms ?? 0);
    byRole.set(role, (byRole.get(role) ?? 0) + used);
    if (role.startsWith('sandbox')) {
      sandboxesMs += used;
      if (used > 0) working++;
      if (!before.has(pid)) started++;
    }
  }
  const exited = [...before].filter(
    ([pid, { role }]) => role.startsWith('sandbox') && !after.has(pid),
  ).length;
  return { byRole, sandboxes: sandboxesMs / requests, working, started, exited, requests };
}

/** Two decimals of a millisecond: what a figure of 1,500 requests resolves. */
const ms2 = (ms: number) => Math.round(ms * 100) / 100;

/**
 * The mean of rounds at one number of connections; a role that did no work in a round counts 0
 * there (the npm and tsx wrappers never work, and are left out).
 */
export function meanOf(rounds: readonly { sandboxes: number; roles: Map<string, number> }[]) {
  const roles = new Set(rounds.flatMap((round) => [...round.roles.keys()]));
  const mean = (pick: (round: (typeof rounds)[number]) => number) =>
    ms2(rounds.reduce((sum, round) => sum + pick(round), 0) / rounds.length);
  return {
    sandboxes: mean((round) => round.sandboxes),
    roles: Object.fromEntries(
      [...roles]
        .map((role) => [role, mean((round) => round.roles.get(role) ?? 0)] as const)
        .filter(([, ms]) => ms > 0)
        .sort(([, a], [, b]) => b - a),
    ),
  };
}

/** The phase. */
export const cpuPerRequest: BenchPhase = {
  name: 'cpu',
  description: "npm start's CPU per request by process (runtime, each function's sandboxes)",
  async run({ dir, print, fail, writeMeasurements }: BenchContext) {
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
      const creates = (connections: number, amount: number) =>
        autocannon({
          url,
          connections,
          amount,
          requests: [
            {
              method: 'POST',
              path: '/plants',
              headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
              setupRequest: (request) => ({
                ...request,
                body: `{"id":${id++},"name":"Cpu","tag":"bench"}`,
              }),
            },
          ],
        });
      // The pools grow to what 16 connections need first, and each figure follows a run of its
      // own load: the figures are the steady state's, not the pools' growth.
      await creates(16, REQUESTS);
      print(
        `npm start's CPU per request (${REQUESTS} distinct creates per figure, authorizer cache off, CPU time of each process of its tree; ms a request):`,
      );
      // Per number of connections: every sandbox's and each role's ms a request, round by round.
      const taken = new Map<number, { sandboxes: number; roles: Map<string, number> }[]>();
      let failed = 0;
      for (const connections of ROUNDS) {
        await creates(connections, WARM_UP_REQUESTS);
        const before = cpuOfTree(npmStart.child.pid!);
        const result = await creates(connections, REQUESTS);
        const figures = perRequest(before, cpuOfTree(npmStart.child.pid!), result.requests.total);
        const roles = [...figures.byRole]
          .filter(([, ms]) => ms > 0)
          .sort(([, a], [, b]) => b - a)
          .map(([role, ms]) => `${role} ${(ms / figures.requests).toFixed(2)}`);
        const failures = result.non2xx + result.errors + result.timeouts;
        failed += failures;
        const perRole = new Map(
          [...figures.byRole].map(([role, ms]) => [role, ms / figures.requests] as const),
        );
        taken.set(connections, [
          ...(taken.get(connections) ?? []),
          { sandboxes: figures.sandboxes, roles: perRole },
        ]);
        print(
          `  ${String(connections).padStart(2)} connection${connections === 1 ? ' ' : 's'}: sandboxes ${figures.sandboxes.toFixed(2)} (${figures.working} at work, ${figures.started} started, ${figures.exited} exited); ${roles.join(', ')}; ${failures} failed`,
        );
      }
      print();
      if (writeMeasurements && failed > 0) {
        fail(`cpu: ${failed} requests were not answered 200; nothing recorded`);
      } else if (writeMeasurements) {
        const file = writeMeasurement('cpu', {
          ...measuredHere('npm run bench -- --phases cpu'),
          requests: REQUESTS,
          rounds: ROUNDS.filter((connections) => connections === 1).length,
          byConnections: Object.fromEntries(
            [...taken].map(([connections, rounds]) => [String(connections), meanOf(rounds)]),
          ),
        });
        print(`  wrote ${relative(PROJECT_ROOT, file)}\n`);
      }
    } finally {
      await npmStart.stop();
    }
  },
};
