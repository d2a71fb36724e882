/**
 * `npm run load` against a server that stalls for a known time under a known rate: the open
 * loop's percentiles hold the stall where arithmetic puts it, where a closed loop over the same
 * server sees it once per connection; statuses are counted by kind; the report and the picture
 * are written and well formed.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LoadReport } from '../../../lib/lab/load/report';
import { runBin, runCommand } from '../../support/run-cli';
import { startStallServer, type StallServer } from '../../support/stall-server';

const STALL_MS = 1000;
const RATE = 100;
const SECONDS = 4;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'plant-store-load-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Tags open and close in order, one root `<svg>` (the picture is written without a library). */
function expectWellFormedSvg(svg: string): void {
  const stack: string[] = [];
  let roots = 0;
  for (const [, closing, name, , selfClosing] of svg.matchAll(
    /<(\/?)([a-z]+)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>/g,
  )) {
    if (closing) expect(stack.pop()).toBe(name);
    else if (!selfClosing) {
      if (!stack.length) roots++;
      stack.push(name!);
    }
  }
  expect(stack).toEqual([]);
  expect(roots).toBe(1);
  expect(svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" width="\d+" height="\d+"/);
  // Every "<" starts a tag the pattern read: no stray markup, no unescaped text.
  expect(svg.match(/</g)!.length).toBe(
    [...svg.matchAll(/<(\/?)([a-z]+)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>/g)].length,
  );
  for (const [, points] of svg.matchAll(/points="([^"]*)"/g)) {
    expect(points!.split(' ').every((pair) => /^-?[\d.]+,-?[\d.]+$/.test(pair))).toBe(true);
  }
}

/** Renders the SVG with librsvg when this machine has it: a real renderer accepts the file. */
function renderedByLibrsvg(file: string): boolean | 'absent' {
  try {
    execFileSync('rsvg-convert', ['--version'], { stdio: 'ignore' });
  } catch {
    return 'absent';
  }
  execFileSync('rsvg-convert', [file, '-o', `${file}.png`]);
  return readFileSync(`${file}.png`).subarray(1, 4).toString() === 'PNG';
}

describe('npm run load against a server that stalls', () => {
  let server: StallServer;
  let report: LoadReport;
  let stdout: string;
  let stderr: string;

  beforeAll(async () => {
    server = await startStallServer({ afterMs: 1500, stallMs: STALL_MS });
    const result = await runBin(
      'load',
      [
        '--url',
        server.url,
        '--rate',
        String(RATE),
        '--duration',
        String(SECONDS),
        '--out',
        join(dir, 'stall'),
      ],
      { PLANT_STORE_TOKEN: 'pst_test' },
    );
    ({ stdout, stderr } = result);
    expect(result).toMatchObject({ code: 0 });
    report = JSON.parse(readFileSync(join(dir, 'stall.json'), 'utf8')) as LoadReport;
  }, 300_000);
  afterAll(() => server.close());

  it('sends every scheduled request, whatever the stall, and counts every answer', () => {
    expect(report.overall.requests).toBe(RATE * SECONDS);
    expect(server.received()).toBe(RATE * SECONDS);
    expect(report.overall.classes).toEqual({
      ok: RATE * SECONDS,
      throttled: 0,
      clientError: 0,
      serverError: 0,
      failed: 0,
      other: 0,
    });
  });

  it('puts the stall in every percentile it reaches', () => {
    // A quarter of the requests arrive during the stall, waiting from the whole of it down to
    // nothing: 10 % of all wait over 0.6 × the stall, 1 % over 0.96 ×.
    const { p90, p99, max } = report.overall.latencyMs;
    expect(p90).toBeGreaterThanOrEqual(0.5 * STALL_MS);
    expect(p99).toBeGreaterThanOrEqual(0.9 * STALL_MS);
    expect(max).toBeGreaterThanOrEqual(0.95 * STALL_MS);
    expect(report.overall.latencyMs.p50).toBeLessThan(p90);
    // The timeline holds the stall in the windows scheduled during it.
    expect(Math.max(...report.timeline.windows.map((w) => w.maxMs))).toBeGreaterThanOrEqual(
      0.9 * STALL_MS,
    );
    expect(report.overall.curve.at(-1)).toEqual({ percentile: 100, ms: max });
  });

  it('where a closed loop would report the stall once per connection', async () => {
    const closed = await startStallServer({ afterMs: 1500, stallMs: STALL_MS });
    try {
      const latencies: number[] = [];
      const until = performance.now() + SECONDS * 1000;
      await Promise.all(
        Array.from({ length: 4 }, async () => {
          while (performance.now() < until) {
            const started = performance.now();
            await (await fetch(closed.url, { method: 'POST', body: '{}' })).text();
            latencies.push(performance.now() - started);
          }
        }),
      );
      // Counted by what the server held, not by a latency threshold a busy machine can cross:
      // each connection waits out the stall with one request and sends nothing meanwhile, so
      // the stall is in at most one request per connection, far fewer than the 10 % a p90
      // would need to show it.
      expect(closed.stalled()).toBeGreaterThanOrEqual(1);
      expect(closed.stalled()).toBeLessThanOrEqual(4);
      expect(closed.stalled()).toBeLessThan(latencies.length * 0.1);
    } finally {
      await closed.close();
    }
  });

  it('writes the picture beside the report', () => {
    const svg = readFileSync(join(dir, 'stall.svg'), 'utf8');
    expectWellFormedSvg(svg);
    expect(svg).toContain(`${RATE}/s`);
    expect(svg.match(/<polyline/g)!.length).toBe(4); // p50, p99, max over time; one curve
    expect(renderedByLibrsvg(join(dir, 'stall.svg'))).not.toBe(false);
  });

  it('prints progress while it runs and the summary at the end', () => {
    expect(stderr).toMatch(/^\s+1 s {2}100\/s {2}sent \d+/m);
    expect(stdout).toContain(`report ${join(dir, 'stall.json')}`);
    expect(stdout).toMatch(/^\s+100\s+400\s+/m);
  });
});

describe('npm run load counts statuses by kind', () => {
  it('429s and 5xx apart, each status by itself', async () => {
    const statuses = [200, 429, 503, 500, 404, 200, 200, 200];
    const server = await startStallServer({
      afterMs: 60_000,
      stallMs: 0,
      statusOf: (n) => statuses[n % statuses.length]!,
    });
    try {
      const result = await runBin(
        'load',
        ['--url', server.url, '--rate', '80', '--duration', '2', '--out', join(dir, 'statuses')],
        {
          PLANT_STORE_TOKEN: 'pst_test',
        },
      );
      expect(result.code).toBe(0);
      const report = JSON.parse(readFileSync(join(dir, 'statuses.json'), 'utf8')) as LoadReport;
      expect(report.overall.statuses).toEqual({
        '200': 80,
        '429': 20,
        '503': 20,
        '500': 20,
        '404': 20,
      });
      expect(report.overall.classes).toEqual({
        ok: 80,
        throttled: 20,
        clientError: 20,
        serverError: 40,
        failed: 0,
        other: 0,
      });
      expect(result.stdout).toContain('429 20, other 4xx 20, 5xx 40, no answer 0');
    } finally {
      await server.close();
    }
  });

  it('counts a refused connection as no answer, and still writes the report', async () => {
    const server = await startStallServer({ afterMs: 0, stallMs: 0 });
    const { url } = server;
    await server.close();
    const result = await runCommand(
      'load',
      ['--url', url, '--rate', '20', '--duration', '1', '--out', join(dir, 'refused')],
      {
        PLANT_STORE_TOKEN: 'pst_test',
      },
    );
    expect(result.code).toBe(0);
    const report = JSON.parse(readFileSync(join(dir, 'refused.json'), 'utf8')) as LoadReport;
    expect(report.overall.statuses).toEqual({ ECONNREFUSED: 20 });
    expect(report.overall.classes.failed).toBe(20);
    expect(existsSync(join(dir, 'refused.svg'))).toBe(true);
  });
});

describe('npm run load says what it measured, whatever stops it', () => {
  it('Ctrl-C: the summary and report of the time it ran, exit code 130', async () => {
    const server = await startStallServer({ afterMs: 60_000, stallMs: 0 });
    const stop = new AbortController();
    const stopping = setInterval(() => server.received() >= 40 && stop.abort(), 20);
    try {
      const result = await runCommand(
        'load',
        ['--url', server.url, '--rate', '20', '--duration', '60', '--out', join(dir, 'stopped')],
        { PLANT_STORE_TOKEN: 'pst_test' },
        stop.signal,
      );
      expect(result.code).toBe(130);
      expect(result.stdout).toContain('(interrupted)');
      const report = JSON.parse(readFileSync(join(dir, 'stopped.json'), 'utf8')) as LoadReport;
      const [step] = report.steps;
      expect(report.interrupted).toBe(true);
      expect(step!.elapsedSeconds).toBeLessThan(60);
      // 2xx a second over the seconds it ran (rounded to a tenth), not over the 60 planned.
      expect(Math.abs(step!.okPerSecond * step!.elapsedSeconds - step!.classes.ok)).toBeLessThan(
        0.1 * step!.classes.ok + 1,
      );
    } finally {
      clearInterval(stopping);
      await server.close();
    }
  });

  it('prints the summary before it writes the files, so a failed write loses no figure', async () => {
    const gone = join(dir, 'gone');
    mkdirSync(gone);
    // The folder --out names is there when checked, and removed during the run.
    const server = await startStallServer({
      afterMs: 60_000,
      stallMs: 0,
      statusOf: () => (rmSync(gone, { recursive: true, force: true }), 200),
    });
    try {
      const result = await runCommand(
        'load',
        ['--url', server.url, '--rate', '20', '--duration', '1', '--out', join(gone, 'r')],
        { PLANT_STORE_TOKEN: 'pst_test' },
      );
      expect(result.code).toBe(1);
      expect(result.stdout).toMatch(/^\s+20\s+20\s+/m);
      expect(result.stderr).toMatch(/^npm run load: ENOENT/m);
    } finally {
      await server.close();
    }
  });
});

describe('npm run load refuses a mistake in one line', () => {
  it.each([
    [['--rate', '0'], 'npm run load: --rate takes positive numbers separated by commas, not 0'],
    [
      ['--url', 'http://127.0.0.1:1', '--duration', '1', '--out', '/nonexistent/r'],
      'npm run load: --out /nonexistent/r: cannot write in /nonexistent',
    ],
    [
      ['--url', 'https://abc.execute-api.us-east-1.amazonaws.com', '--rate', '100'],
      'npm run load: abc.execute-api.us-east-1.amazonaws.com is not this machine: without --yes a run is at most 20 requests a second for 60 s, and this one asks 100 a second for 10 s',
    ],
  ])('%j', async (argv, line) => {
    const result = await runCommand('load', argv, { PLANT_STORE_TOKEN: 'pst_test' });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`${line} (see npm run load -- --help)\n`);
    expect(result.stdout).toBe('');
  });

  it('--help says how, exit 0', async () => {
    const result = await runCommand('load', ['--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('PLANT_STORE_TOKEN');
    expect(result.stdout).toContain('--yes');
  });
});
