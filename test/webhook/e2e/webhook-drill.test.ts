/**
 * The outage drill with the webhook, through `npm start` as a user runs it: writers load the
 * API (resending on 503, as the client does) while the engine is taken down and back with
 * `kill -USR2` again and again, and one receiver is killed mid-delivery and restarted. Then the
 * store, the receivers and the dead letters are compared: every plant stored is delivered to
 * each subscriber (bodies exact, one webhook-id each) or dead-lettered — 0 lost — nothing that
 * was not stored is delivered, the deliveries cut by the kill arrive again, and the stream gave
 * nothing up. At the default retry scale and at a small one.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { generateToken } from '../../../lambda/tokens/token';
import { freePort } from '../../../lib/local/process/free-port';
import { startNpmStart } from '../../../lib/npm-start/spawn';
import { runCommand } from '../../support/run-cli';
import { until } from '../../support/webhook-receiver';

jest.setTimeout(420_000);

const temporary: string[] = [];
afterAll(() => {
  for (const dir of temporary) rmSync(dir, { recursive: true, force: true });
});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A receiver on a fixed port that can be killed (connections cut mid-request) and restarted. */
function killableReceiver(port: number) {
  const delivered = new Map<string, string>(); // webhook-id → body, answered 204
  const cut = new Set<string>(); // bodies whose request was cut by a kill
  const unverified: string[] = [];
  let secret = '';
  let server: Server | undefined;
  let holding = false;
  const open = new Set<{ body: string }>();
  const start = () =>
    new Promise<void>((resolve) => {
      server = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          const headers = Object.fromEntries(
            Object.entries(req.headers).map(([k, v]) => [k, String(v)]),
          );
          try {
            new Webhook(secret).verify(body, headers);
          } catch {
            unverified.push(body);
            return void res.writeHead(401).end();
          }
          if (holding) {
            // Held open until the kill cuts it: a delivery in flight when the receiver dies.
            const entry = { body };
            open.add(entry);
            res.on('close', () => {
              open.delete(entry);
              cut.add(body);
            });
            return;
          }
          delivered.set(headers['webhook-id']!, body);
          res.writeHead(204).end();
        });
      });
      server.listen(port, '127.0.0.1', resolve);
    });
  return {
    url: `http://127.0.0.1:${port}/hook`,
    delivered,
    cut,
    unverified,
    open: () => open.size,
    setSecret: (s: string) => (secret = s),
    start,
    hold: () => (holding = true),
    async kill() {
      server!.closeAllConnections();
      await new Promise((resolve) => server!.close(resolve));
      holding = false;
    },
  };
}

/** Stops the runtime itself (npm does not pass SIGTERM on) and waits for npm to exit. */
function stop(child: ChildProcess, pid: number): Promise<number | null> {
  return new Promise((resolve) => {
    child.once('exit', (code) => resolve(code));
    process.kill(pid, 'SIGTERM');
  });
}

/** True while process `pid` runs. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** How long the drill resends one request answered 503 (or cut) before it takes that answer. */
const RESEND_FOR_MS = 60_000;

/**
 * Sends until an answer other than 503 comes, resending after its Retry-After (in tenths: the
 * outages last about a second) or 100 ms after a cut connection, as a client does; past
 * `RESEND_FOR_MS` (a request still unanswered then is aborted), the last answer (undefined: the
 * connection was cut).
 */
async function resending(send: (signal: AbortSignal) => Promise<Response>) {
  const deadline = Date.now() + RESEND_FOR_MS;
  for (;;) {
    const signal = AbortSignal.timeout(Math.max(1, deadline - Date.now()));
    const answer = await send(signal).catch(() => undefined);
    if ((answer && answer.status !== 503) || Date.now() >= deadline) return answer;
    await answer?.body?.cancel();
    await sleep(Number(answer?.headers.get('retry-after') ?? 1) * 100);
  }
}

it.each([
  ['the default retry scale', undefined],
  ['a small retry scale', '0.002'],
])(
  'loses no plant through engine outages under load and a receiver killed mid-delivery, at %s',
  async (_, scale) => {
    const [port, dbPort, receiverPort] = [await freePort(), await freePort(), await freePort()];
    const { token } = generateToken();
    temporary.push(mkdtempSync(join(tmpdir(), 'plant-store-drill-')));
    const { child, output } = await startNpmStart({
      env: {
        PORT: String(port),
        PLANT_STORE_DB_PORT: String(dbPort),
        PLANT_STORE_DATA_DIR: temporary.at(-1)!,
        PLANT_STORE_DEV_TOKEN: token,
        ...(scale ? { PLANT_STORE_WEBHOOK_RETRY_SCALE: scale } : {}),
      },
      args: ['--memory', '--no-watch'],
    });
    const steady = killableReceiver(await freePort());
    const fragile = killableReceiver(receiverPort);
    // The runtime's own pid (npm is its parent): signalled for outages, stopped at the end.
    const pid = Number(/outage: +kill -USR2 (\d+) /.exec(output())![1]);
    // The CLIs find the engine and the operator's keys as a second terminal would.
    const cli = { PLANT_STORE_DB_PORT: String(dbPort), PLANT_STORE_DATA_DIR: temporary.at(-1)! };
    try {
      for (const receiver of [steady, fragile]) {
        await receiver.start();
        const added = await runCommand('webhook', ['add', '--url', receiver.url], cli);
        expect(added.code).toBe(0);
        receiver.setSecret(added.stdout.trim());
      }
      const api = `http://127.0.0.1:${port}/plants`;
      const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      // Caches the token's decision, so that an outage answers 503 rather than the authorizer's 500.
      expect(
        (await fetch(api, { method: 'POST', headers, body: '{"id":1,"name":"p1"}' })).status,
      ).toBe(200);

      // Four writers for 8 s, each resending a create on 503 (after Retry-After) until it is answered.
      const confirmed = new Set<string>();
      // Creates still answered 503 (or cut) when the resend bound ran out: none.
      const unanswered: string[] = [];
      let writing = true;
      const writer = async (w: number) => {
        for (let n = 1; writing; n++) {
          const id = String(w * 1_000_000 + n);
          const answer = await resending((signal) =>
            fetch(api, { method: 'POST', headers, body: `{"id":${id},"name":"p${id}"}`, signal }),
          );
          if (answer?.status === 200) confirmed.add(id);
          else if ((answer?.status ?? 503) === 503) unanswered.push(id);
          await answer?.body?.cancel();
        }
      };
      const writers = [1, 2, 3, 4].map(writer);
      // Outages of 0.4 to 1.5 s, 0.6 to 1.2 s apart; the fragile receiver dies holding requests.
      let outages = 0;
      for (let i = 0; i < 6; i++) {
        await sleep(600 + Math.random() * 600);
        process.kill(pid, 'SIGUSR2');
        await sleep(400 + Math.random() * 1_100);
        process.kill(pid, 'SIGUSR2');
        outages++;
        if (i === 1) fragile.hold();
        if (i === 2) {
          // Killed while it holds deliveries in flight (one comes within a batch or two).
          await until(() => fragile.open() > 0, 'a delivery in flight to the fragile receiver');
          await fragile.kill();
        }
        if (i === 3) await fragile.start();
      }
      writing = false;
      await Promise.all(writers);
      expect(unanswered).toEqual([]);
      await until(
        () => (output().match(/SIGUSR2: the engine is back/g) ?? []).length === outages,
        'the engine is back',
      );

      // The store is the truth: every plant it holds, as its JSON. A page answered 503 is asked
      // again, as the writers resend; any other answer than 200 fails here, never as a short
      // listing.
      const listPage = async (url: string): Promise<string> => {
        const answer = await resending((signal) => fetch(url, { headers, signal }));
        const text = await answer?.text();
        expect({ url, status: answer?.status, text }).toMatchObject({ status: 200 });
        return text!;
      };
      const stored = new Map<string, string>();
      for (let after: string | undefined; ;) {
        const page = await listPage(`${api}?limit=100${after ? `&cursor=${after}` : ''}`);
        const items = [...page.matchAll(/\{"id":(-?\d+),"name":"[^"]*"\}/g)];
        for (const [body, id] of items) stored.set(id!, body);
        after = /"next":"([^"]+)"/.exec(page)?.[1];
        if (!after) break;
      }
      for (const id of confirmed) expect(stored.has(id)).toBe(true);
      expect(stored.size).toBeGreaterThan(20);

      const deadLetters = async () =>
        new Set(
          (await runCommand('webhook', ['dead-letters'], cli)).stdout
            .split('\n')
            .filter(Boolean)
            .map((line) => line.split('\t')[2]!),
        );
      const bodies = (r: ReturnType<typeof killableReceiver>) => new Set(r.delivered.values());
      const want = new Set(stored.values());
      await until(
        () => [steady, fragile].every((r) => [...want].every((b) => bodies(r).has(b))),
        `every stored plant delivered (steady ${bodies(steady).size}, fragile ${bodies(fragile).size} of ${want.size})`,
        300_000,
      );
      const lettered = await deadLetters();
      for (const receiver of [steady, fragile]) {
        // 0 lost, bodies exact, nothing unstored, one webhook-id per plant and subscriber.
        const lost = [...want].filter((b) => !bodies(receiver).has(b));
        expect(lost.filter((b) => !lettered.has(/"id":(-?\d+)/.exec(b)![1]!))).toEqual([]);
        expect([...bodies(receiver)].filter((b) => !want.has(b))).toEqual([]);
        expect(receiver.delivered.size).toBe(want.size);
        expect(receiver.unverified).toEqual([]);
      }
      // The receiver killed mid-delivery got those plants again.
      expect(fragile.cut.size).toBeGreaterThan(0);
      for (const body of fragile.cut) expect(bodies(fragile).has(body)).toBe(true);
      expect(output()).not.toMatch(/gave up on stream record/);
      expect(await stop(child, pid)).toBe(0);
    } finally {
      for (const target of [pid, child.pid!]) if (alive(target)) process.kill(target, 'SIGKILL');
      await Promise.allSettled([steady.kill(), fragile.kill()]);
    }
  },
);
