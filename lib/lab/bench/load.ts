/**
 * `npm start` under load, as an outside load test sees it: the real command in its own process
 * tree; its first 60 requests at once (the cold burst), then 16 keep-alive connections of distinct valid creates (a unique id per request) for
 * `--load-seconds`, then throughput, p99 and errors; and the RSS of the tree by role, idle and
 * at its peak under the load.
 */
import autocannon from 'autocannon';
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { readDevTokenIn, untilRecorded } from '../../npm-start/find';
import { spawnOnFreePorts } from '../../npm-start/spawn';
import { coldBurst, describeColdBurst } from './cold-burst';
import { PeakMemory } from './memory';
import type { BenchContext, BenchPhase } from './phase';

export const CONNECTIONS = 16;

/**
 * Waits until `npm start` answers a request with its dev token: the gateway listens before the
 * token is written and stored, so an answer without one (a 401) is too early.
 */
export async function untilReady(
  url: string,
  child: ChildProcess,
  dataDir: string,
): Promise<string> {
  const started = performance.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}`);
    const token = readDevTokenIn(dataDir) ?? '';
    const ready =
      token !== '' &&
      (await fetch(`${url}/plants`, { headers: { authorization: `Bearer ${token}` } }).then(
        (response) => response.status === 200,
        () => false,
      ));
    if (ready) return token;
    if (performance.now() - started > 60_000) throw new Error('npm start did not answer in 60 s');
    await sleep(50);
  }
}

/**
 * Autocannon's keep-alive connections of distinct creates (`body()` gives each its id): the
 * load's 16 for `seconds`, or `connections` of them until `amount` creates.
 */
export function distinctCreates(
  url: string,
  headers: Record<string, string>,
  body: () => string,
  run: { readonly seconds: number } | { readonly connections: number; readonly amount: number },
) {
  return autocannon({
    url,
    ...('seconds' in run
      ? { connections: CONNECTIONS, duration: run.seconds }
      : { connections: run.connections, amount: run.amount }),
    requests: [
      {
        method: 'POST',
        path: '/plants',
        headers,
        setupRequest: (request) => ({ ...request, body: body() }),
      },
    ],
  });
}

/**
 * The requests of a `distinctCreates` run not answered 200: any other answer, a timeout, a
 * connection error.
 */
export const unanswered = (result: {
  readonly non2xx: number;
  readonly errors: number;
  readonly timeouts: number;
}): number => result.non2xx + result.errors + result.timeouts;

/**
 * The windows (s) of load before a figure under load is taken. At `CONNECTIONS` connections each
 * function has a sandbox per connection, each serving its share of the invocations, so V8 tiers
 * each one's hot code up that many times later than a single process would: taken after a few
 * seconds, a figure measures the tiering. Nothing checks that the rate has levelled off; a phase
 * prints each window's rate, so that its output shows whether it had.
 */
export const WARM_UP_WINDOWS: readonly number[] = [15, 15, 15];

/** The warm-up's seconds in all, as a record keeps them. */
export const WARM_UP_SECONDS = WARM_UP_WINDOWS.reduce((sum, seconds) => sum + seconds, 0);

/**
 * `distinctCreates` for each of `WARM_UP_WINDOWS`: each window's creates a second answered 200,
 * and the requests that were not (any other answer, a timeout, a connection error), which the
 * phase counts as it counts its own: a figure is recorded only if every request was answered 200.
 */
export async function warmUp(
  url: string,
  headers: Record<string, string>,
  body: () => string,
): Promise<{ rates: number[]; failed: number }> {
  const rates: number[] = [];
  let failed = 0;
  for (const seconds of WARM_UP_WINDOWS) {
    const result = await distinctCreates(url, headers, body, { seconds });
    failed += unanswered(result);
    rates.push(result['2xx'] / result.duration);
  }
  return { rates, failed };
}

/** `rates` as a phase prints a warm-up: `234, 288, 306 req/s`. */
export const shownRates = (rates: readonly number[]): string =>
  `${rates.map((rate) => rate.toFixed(0)).join(', ')} req/s`;

/** The load and memory phase. */
export const load: BenchPhase = {
  name: 'load',
  description: 'npm start under 16 keep-alive connections of distinct creates; RSS by role',
  async run({ dir, loadSeconds, print }: BenchContext) {
    const dataDir = join(dir, 'load-data');
    const { child, url, stop } = await spawnOnFreePorts(dataDir);
    try {
      // First the cold burst: the first requests this npm start serves, distinct creates.
      const coldToken = await untilRecorded(dataDir, () => child.exitCode !== null);
      let id = Date.now() * 1000;
      const body = () => `{"id":${id++},"name":"Load","tag":"bench"}`;
      const cold = await coldBurst(() =>
        fetch(`${url}/plants`, {
          method: 'POST',
          headers: { authorization: `Bearer ${coldToken}`, 'content-type': 'application/json' },
          body: body(),
        }),
      );
      const token = await untilReady(url, child, dataDir);
      const headers = {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
      };
      for (let i = 0; i < 20; i++) {
        const response = await fetch(`${url}/plants`, { method: 'POST', headers, body: body() });
        if (response.status !== 200)
          throw new Error(`a warm-up create answered ${response.status}`);
      }
      await sleep(2_000);
      const idle = new PeakMemory();
      idle.sample(child.pid!);

      const busy = new PeakMemory();
      const sampler = setInterval(() => busy.sample(child.pid!), 1_000);
      let result;
      try {
        result = await distinctCreates(url, headers, body, { seconds: loadSeconds });
      } finally {
        clearInterval(sampler);
      }
      const errors = unanswered(result);
      print(
        `npm start under load (${CONNECTIONS} keep-alive connections, ${loadSeconds} s, distinct valid creates; autocannon in the bench process):`,
      );
      print(
        `  ${(result['2xx'] / result.duration).toFixed(0)} req/s answered 200 (${result.requests.total} requests), latency p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, max ${result.latency.max} ms; errors ${errors} (goal ≥ 1000 req/s, p99 ≤ 40 ms, 0 errors)`,
      );
      print(describeColdBurst('distinct creates', cold));
      print('  RSS of the npm start process tree, idle (after 20 creates):');
      idle.report().forEach((line) => print(line));
      print('  RSS, peak per process under the load:');
      busy.report().forEach((line) => print(line));
      print();
    } finally {
      await stop();
    }
  },
};
