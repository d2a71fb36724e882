/**
 * The first requests a fresh `npm start` serves, all at once: what a client that starts with
 * the runtime (a test suite, a page) meets before anything is warm. Readiness is read from the
 * data directory (`untilRecorded` in lib/npm-start/find.ts: the ports file is written once
 * everything listens, the dev token before it), so that no request warms a sandbox before the burst.
 */
import { percentile } from './measure';

/** Requests in a cold burst: as many as the measure, under the gateway's 64 in flight. */
export const COLD_BURST_REQUESTS = 60;

/** What a cold burst got. */
export interface ColdBurst {
  /** How many answers had each status. */
  readonly statuses: Readonly<Record<number, number>>;
  /** Answers a deployed stage would not give for these requests: 5xx and 429. */
  readonly errors: number;
  readonly p99Ms: number;
  /** From the first request sent to the last answer. */
  readonly totalMs: number;
}

/** Sends `COLD_BURST_REQUESTS` requests made by `request` at once and tallies the answers. */
export async function coldBurst(request: (i: number) => Promise<Response>): Promise<ColdBurst> {
  const statuses: Record<number, number> = {};
  const latencies: number[] = [];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: COLD_BURST_REQUESTS }, async (_, i) => {
      const sent = performance.now();
      const status = await request(i).then(
        async (response) => (await response.arrayBuffer(), response.status),
        () => 0,
      );
      latencies.push(performance.now() - sent);
      statuses[status] = (statuses[status] ?? 0) + 1;
    }),
  );
  const errors = Object.entries(statuses)
    .filter(([status]) => Number(status) >= 500 || Number(status) === 429 || status === '0')
    .reduce((sum, [, count]) => sum + count, 0);
  return {
    statuses,
    errors,
    p99Ms: percentile(latencies, 99),
    totalMs: performance.now() - started,
  };
}

/** One line for the report. */
export function describeColdBurst(what: string, burst: ColdBurst): string {
  const tally = Object.entries(burst.statuses)
    .map(([status, count]) => `${count} × ${status === '0' ? 'no answer' : status}`)
    .join(', ');
  return `  cold burst (the first ${COLD_BURST_REQUESTS} requests after start, all at once, ${what}): ${tally}; errors ${burst.errors}, p99 ${burst.p99Ms.toFixed(0)} ms, all answered in ${burst.totalMs.toFixed(0)} ms`;
}
