/**
 * A cold `npm start` under a burst answers only what a deployed stage would: no 500 from an
 * authorizer that started late, no 503 from an engine starved by sandboxes starting, the racers
 * on one id one 200 and the rest 409, and the stage throttle deciding as requests arrive. Each
 * burst meets a runtime that has served nothing (a fresh process, a fresh data directory).
 * Nothing here asserts a duration: the throttle's bound counts the tokens the bucket may have
 * refilled over however long the burst took.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startNpmStart, type ListeningNpmStart } from '../../../lib/npm-start/spawn';

const running: ListeningNpmStart[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((service) => service.stop()));
});
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A fresh `npm start` on free ports with a data directory of its own, and its dev token. */
async function coldStart(args: string[] = []) {
  const dataDir = mkdtempSync(join(tmpdir(), 'plant-store-cold-'));
  dirs.push(dataDir);
  const service = await startNpmStart({
    env: { PORT: '0', PLANT_STORE_DB_PORT: '0', PLANT_STORE_DATA_DIR: dataDir },
    args: ['--no-watch', ...args],
  });
  running.push(service);
  const token = readFileSync(join(dataDir, 'dev-token'), 'utf8').trim();
  return { ...service, headers: { authorization: `Bearer ${token}` } };
}

/** How many answers had each status. */
function tally(statuses: readonly number[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

it('60 concurrent authorized GETs on a cold runtime: 60 × 404, as deployed', async () => {
  const { url, headers, output, stop } = await coldStart();
  // Nothing started ahead: each function's first invocation starts its first sandbox.
  expect(output()).not.toMatch(/INIT_START/);
  const statuses = await Promise.all(
    Array.from({ length: 60 }, () =>
      fetch(`${url}/plants/1`, { headers }).then(async (r) => (await r.text(), r.status)),
    ),
  );
  expect(tally(statuses)).toEqual({ 404: 60 });
  // Every request was served: none throttled as an invocation, none timed out. Read once the
  // runtime has said it stops: every line of the requests was written before that one.
  await stop();
  await until(() => output().includes('finishing requests in flight'), 'the stop line');
  expect(output()).not.toMatch(/throttled|Task timed out/);
});

it('24 concurrent creates of one id on a cold runtime: one 200 and 23 × 409', async () => {
  const { url, headers } = await coldStart();
  const create = (body: object) =>
    fetch(`${url}/plants`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).then(async (r) => (await r.text(), r.status));
  const statuses = await Promise.all(
    Array.from({ length: 24 }, (_, i) => create({ id: 42, name: `racer ${i}` })),
  );
  expect(tally(statuses)).toEqual({ 200: 1, 409: 23 });
});

it('8 concurrent creates on a cold runtime: each sandbox started served the invocation it was started for', async () => {
  const { url, headers, output } = await coldStart();
  const statuses = await Promise.all(
    Array.from({ length: 8 }, (_, i) =>
      fetch(`${url}/plants`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ id: 100 + i, name: `cold ${i}` }),
      }).then(async (r) => (await r.text(), r.status)),
    ),
  );
  expect(tally(statuses)).toEqual({ 200: 8 });
  const lines = (name: string, marker: string) =>
    output()
      .split('\n')
      .filter((l) => l.startsWith(`[${name}] ${marker}`));
  // A function's REPORT line is printed before its answer leaves, but reaches us by another pipe.
  await until(() => lines('create-plant', 'REPORT ').length === 8, 'the 8 REPORT lines');
  for (const name of ['authorizer', 'create-plant']) {
    const started = lines(name, 'INIT_START sandbox ').length;
    const cold = lines(name, 'REPORT ').filter((l) => l.includes('\tInit Duration: ')).length;
    // One started for each invocation that found none free (none starts ahead): each reported
    // its init once, on the invocation it served first. A sandbox started for an invocation and
    // then given to another would leave an INIT_START without its report.
    expect({ name, cold }).toEqual({ name, cold: started });
  }
  // The 8 reach the authorizer at once: more than one sandbox served them. (The
  // creates reach their function as each authorizer's answer comes, spread by the starts' turns
  // at the gate: how many find a sandbox free there depends on the machine's pace.)
  expect(lines('authorizer', 'INIT_START sandbox ').length).toBeGreaterThan(1);
});

/** Polls `check` every 50 ms, failing after 20 s. */
async function until(check: () => boolean, what: string) {
  for (const started = Date.now(); !check();) {
    if (Date.now() - started > 20_000) throw new Error(`waited 20 s for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

it('--throttle-rate 10 --throttle-burst 10, 60 concurrent on a cold runtime: the bucket decides as they arrive', async () => {
  const { url, headers } = await coldStart(['--throttle-rate', '10', '--throttle-burst', '10']);
  const started = performance.now();
  let lastRefusal = started;
  const statuses = await Promise.all(
    Array.from({ length: 60 }, () =>
      fetch(`${url}/plants/1`, { headers }).then(async (r) => {
        await r.text();
        if (r.status === 429) lastRefusal = performance.now();
        return r.status;
      }),
    ),
  );
  // Every request had arrived by the last refusal's answer, give or take the admitted ones
  // still on their way; the bucket may have refilled over that long.
  const seconds = (lastRefusal - started) / 1000;
  const counts = tally(statuses);
  // Only the throttle's 429 and the function's 404: no 500 from an authorizer that came late.
  expect(Object.keys(counts).sort()).toEqual(['404', '429']);
  // The burst's 10 tokens, plus at most what the bucket refilled while the requests arrived
  // (10 a second, one more for a request admitted after the last refusal): a bucket consulted
  // after the authorizer's sandbox started would let through more than that.
  expect(counts[404]).toBeGreaterThanOrEqual(10);
  expect(counts[404]).toBeLessThanOrEqual(10 + Math.ceil(seconds * 10) + 1);
  expect(counts[429]).toBe(60 - counts[404]!);
});
