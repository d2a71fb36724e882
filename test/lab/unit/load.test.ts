/**
 * `npm run load`'s arguments, token, mix, ids and knee, and its open loop driven by a fake sender.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UsageError } from '../../../lib/cli/args';
import { checkOut, loadToken } from '../../../lib/lab/load';
import { devTokenFile, portsFile } from '../../../lib/npm-start/find';
import { NON_LOCAL_CEILING, parseLoadArgs, parseMix } from '../../../lib/lab/load/args';
import { exampleRequest } from '../../../lib/definitions/example-request';
import { plantUse } from '../../../lib/lab/plant-use';
import {
  FUNCTION_OF,
  LOAD_PLANT,
  MixPicker,
  OPERATIONS,
  plan,
  Plants,
  usesPlant,
  type Operation,
  type PlannedRequest,
} from '../../../lib/lab/load/operations';
import { buildReport, findKnee, type StepReport } from '../../../lib/lab/load/report';
import { READ_SEED, runLoad } from '../../../lib/lab/load/run';

const parse = (...argv: string[]) => parseLoadArgs(argv, {});
/** The mix with every operation at weight 0. */
const NO_MIX = Object.fromEntries(OPERATIONS.map((op) => [op, 0])) as Record<Operation, number>;

describe('parseLoadArgs', () => {
  it('defaults to npm start, 50 creates a second for 10 s', () => {
    const args = parse();
    expect(args.url.href).toBe('http://127.0.0.1:3000/');
    expect(args).toMatchObject({
      local: true,
      steps: [{ rate: 50, seconds: 10 }],
      warmupSeconds: 0,
      connections: 512,
      timeoutMs: 30_000,
      out: 'load-report',
    });
    expect(args.mix).toEqual({ ...NO_MIX, 'create-plant': 1 });
    expect(parseLoadArgs([], { PORT: '4000' }).url.port).toBe('4000');
    expect(parse('http://127.0.0.1:9/').url.href).toBe('http://127.0.0.1:9/');
  });

  it('reads steps, the mix and the rest', () => {
    const args = parse(
      '--url',
      'http://localhost:9/base',
      '--rate',
      '10,20.5,40',
      '--duration',
      '3',
      '--warmup',
      '2',
      '--mix',
      'create-plant=2,get-plant=5,delete-plant=1',
      '--out',
      'x/run.json',
      '--connections',
      '8',
      '--timeout',
      '500',
    );
    expect(args.steps).toEqual([
      { rate: 10, seconds: 3 },
      { rate: 20.5, seconds: 3 },
      { rate: 40, seconds: 3 },
    ]);
    expect(args).toMatchObject({ warmupSeconds: 2, connections: 8, timeoutMs: 500, out: 'x/run' });
    expect(args.mix).toEqual({ ...NO_MIX, 'create-plant': 2, 'get-plant': 5, 'delete-plant': 1 });
  });

  it.each([
    [['--rate', '0'], '--rate takes positive numbers separated by commas, not 0'],
    [['--rate', '10,,20'], '--rate takes positive numbers separated by commas, not 10,,20'],
    [['--rate', '200000'], '--rate is at most 100000 a second, not 200000'],
    [['--duration', '0'], '--duration must be an integer from 1 to 86400, not 0'],
    [
      ['--mix', 'create-plant=1,bogus=2'],
      `--mix takes ${OPERATIONS.map((op) => `${op}=<weight>`).join(',')} (any of them), not create-plant=1,bogus=2`,
    ],
    [['--mix', 'get-plant=0'], '--mix needs one operation with a weight above 0, not get-plant=0'],
    [['--url', 'ftp://x'], '--url must be an http or https URL, not ftp://x'],
    [['--url', 'nope'], '--url must be an http or https URL, not nope'],
    [['--out', ''], '--out must name a file, not ""'],
    [['--token', 'pst_x'], 'unknown option --token'],
    [['http://127.0.0.1:1', 'http://127.0.0.1:2'], 'unexpected argument http://127.0.0.1:2'],
    [['--url', 'http://127.0.0.1:1', 'extra'], 'unexpected argument extra'],
    [['--rate'], '--rate needs a value'],
    [['--rate', '-1'], '--rate needs a value (write --rate=-1 for a value that starts with -)'],
  ])('%j is one line: %s', (argv, message) => {
    expect(() => parse(...argv)).toThrow(new UsageError(message));
  });

  it('takes a value that starts with - as --opt=value, and judges it', () => {
    expect(() => parse('--rate=-1')).toThrow(
      new UsageError('--rate takes positive numbers separated by commas, not -1'),
    );
  });

  it('holds a URL that is not this machine to the ceiling unless --yes', () => {
    const url = 'https://abc.execute-api.us-east-1.amazonaws.com';
    expect(
      parse(
        '--url',
        url,
        '--rate',
        String(NON_LOCAL_CEILING.rate),
        '--duration',
        String(NON_LOCAL_CEILING.seconds),
      ).local,
    ).toBe(false);
    expect(() => parse('--url', url, '--rate', '100')).toThrow(
      'abc.execute-api.us-east-1.amazonaws.com is not this machine: without --yes a run is at most 20 requests a second for 60 s, and this one asks 100 a second for 10 s',
    );
    expect(() => parse('--url', url, '--rate', '5', '--duration', '50', '--warmup', '20')).toThrow(
      /asks 5 a second for 70 s/,
    );
    expect(parse('--url', url, '--rate', '1000', '--yes').steps[0]!.rate).toBe(1000);
    for (const local of ['http://localhost:1', 'http://127.0.0.2:1', 'http://[::1]:1']) {
      expect(parse('--url', local, '--rate', '5000').local).toBe(true);
    }
  });
});

describe('the token', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'plant-store-load-token-'));
    writeFileSync(devTokenFile(dataDir), 'pst_dev\n');
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));
  const record = (pid: number) =>
    writeFileSync(
      portsFile(dataDir),
      JSON.stringify({ pid, dbPort: 4322, url: 'http://127.0.0.1:4321' }),
    );
  const token = (url: string, extra: NodeJS.ProcessEnv = {}) =>
    loadToken(parse(url), { PLANT_STORE_DATA_DIR: dataDir, ...extra });

  it('is the dev token only for the URL a running npm start recorded', () => {
    record(process.pid);
    expect(token('http://127.0.0.1:4321')).toBe('pst_dev');
    // Not by another name: `localhost` may reach [::1], where npm start does not listen.
    expect(() => token('http://localhost:4321/')).toThrow(/listens on/);
    expect(() => token('http://127.0.0.1:4330')).toThrow(
      new UsageError(
        `no token: set PLANT_STORE_TOKEN (npm start's dev token goes only to a running npm start, and the one recorded in ${portsFile(dataDir)} listens on http://127.0.0.1:4321, not http://127.0.0.1:4330/)`,
      ),
    );
    expect(token('http://127.0.0.1:4330', { PLANT_STORE_TOKEN: 'pst_given' })).toBe('pst_given');
  });

  it('is required when no running npm start recorded one', () => {
    expect(() => token('http://127.0.0.1:4321')).toThrow(
      new UsageError(
        `no token: set PLANT_STORE_TOKEN (npm start's dev token goes only to a running npm start, and none recorded its ports in ${portsFile(dataDir)})`,
      ),
    );
    const gone = spawnSync(process.execPath, ['-e', '']).pid;
    record(gone);
    expect(() => token('http://127.0.0.1:4321')).toThrow(/none recorded its ports/);
  });
});

describe('--out', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'plant-store-load-out-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is checked before the run: its folder must exist and take files', () => {
    expect(() => checkOut(join(dir, 'report'))).not.toThrow();
    expect(() => checkOut('/nonexistent/r')).toThrow(
      new UsageError('--out /nonexistent/r: cannot write in /nonexistent'),
    );
    mkdirSync(join(dir, 'taken.json'));
    expect(() => checkOut(join(dir, 'taken'))).toThrow(
      new UsageError(`--out ${join(dir, 'taken')}: cannot write ${join(dir, 'taken.json')}`),
    );
  });
});

describe('the mix', () => {
  it('spreads the operations by weight in every window', () => {
    const picker = new MixPicker(parseMix('create-plant=3,get-plant=1'));
    const picks = Array.from({ length: 8 }, () => picker.next());
    expect(picks.filter((op) => op === 'get-plant')).toHaveLength(2);
    expect(picks.slice(0, 4).filter((op) => op === 'get-plant')).toHaveLength(1);
    const all = new MixPicker(parseMix('create-plant=2,get-plant=5,list-plants=1,delete-plant=2'));
    const tally = Array.from({ length: 1000 }, () => all.next()).reduce<Record<string, number>>(
      (t, op) => ({ ...t, [op]: (t[op] ?? 0) + 1 }),
      {},
    );
    expect(tally).toEqual({
      'create-plant': 200,
      'get-plant': 500,
      'list-plants': 100,
      'delete-plant': 200,
    });
  });

  it('gets read plants kept for reading; deletes take each other plant once', () => {
    const plants = new Plants();
    expect(plan('delete-plant', plants, () => 1)).toBeUndefined();
    expect(plan('get-plant', plants, () => 1)).toBeUndefined();
    plants.readable.add(7);
    plants.deletable.add(8);
    expect(plan('get-plant', plants, () => 1)).toMatchObject({ method: 'GET', path: '/plants/7' });
    expect(plan('get-plant', plants, () => 1)).toMatchObject({ method: 'GET', path: '/plants/7' });
    expect(plan('delete-plant', plants, () => 1)).toMatchObject({
      method: 'DELETE',
      path: '/plants/8',
    });
    expect(plan('delete-plant', plants, () => 1)).toBeUndefined();
    expect([plants.readable.size, plants.deletable.size]).toEqual([1, 0]);
    expect(plan('create-plant', plants, () => 9007199254740991)).toMatchObject({
      method: 'POST',
      path: '/plants',
      body: '{"id":9007199254740991,"name":"load","tag":"npm run load"}',
      creates: 9007199254740991,
    });
    expect(plan('list-plants', plants, () => 1)).toMatchObject({
      method: 'GET',
      path: '/plants?limit=20',
    });
    expect(plan('list-plants-by-tag', plants, () => 1)).toMatchObject({
      method: 'GET',
      path: '/plants?tag=npm%20run%20load&limit=20',
    });
  });
});

describe('each operation of the registry', () => {
  it.each(OPERATIONS)('%s is sent as its example request, about a plant its use picks', (op) => {
    const name = FUNCTION_OF[op]!;
    const plants = new Plants();
    plants.readable.add(7);
    plants.deletable.add(8);
    const use = plantUse(name);
    const id = { creates: 9, deletes: 8, names: 7 }[use ?? 'names'];
    const planned = plan(op, plants, () => 9)!;
    const example = exampleRequest(name, id, LOAD_PLANT);
    expect([planned.operation, planned.method, planned.body]).toEqual([
      op,
      example.method,
      example.body,
    ]);
    expect(planned.path.split('?')[0]).toBe(example.path);
    expect(planned.creates).toBe(use === 'creates' ? 9 : undefined);
  });

  it('derives what a request does with a plant from the grants and the example request', () => {
    expect(Object.fromEntries(OPERATIONS.map((op) => [op, usesPlant(op)]))).toMatchObject({
      'create-plant': 'creates',
      'get-plant': 'names',
      'list-plants': undefined,
      'list-plants-by-tag': undefined,
      'update-plant': 'names',
      'patch-plant': 'names',
      'delete-plant': 'deletes',
    });
  });

  it('leaves out and names an operation whose request cannot be derived (the load, the bench)', () => {
    jest.isolateModules(() => {
      jest.doMock('../../../lib/definitions/functions', () => {
        const actual = jest.requireActual('../../../lib/definitions/functions');
        const get = actual.FUNCTIONS['get-plant'];
        const FUNCTIONS = {
          ...actual.FUNCTIONS,
          'get-note': {
            ...get,
            id: 'GetNote',
            operation: { ...get.operation, path: '/plants/{id}/notes/{note}' },
          },
        };
        return { ...actual, FUNCTIONS, FUNCTION_NAMES: Object.keys(FUNCTIONS) };
      });
      const load = jest.requireActual('../../../lib/lab/load/operations');
      const args = jest.requireActual('../../../lib/lab/load/args');
      const why =
        'get-note: no request can be derived from its descriptor: its path parameter {note} has no example value';
      expect(load.OPERATIONS).not.toContain('get-note');
      expect(load.REFUSED).toEqual([why]);
      expect(() => args.parseMix('get-note=1')).toThrow(`--mix: ${why}`);
      expect(args.LOAD_HELP).toContain(`not sent: ${why}`);
      const bench = jest.requireActual('../../../lib/lab/bench/per-request');
      expect(bench.formatRequestCosts([], 1)).toContain(`not measured: ${why}`);
    });
  });
});

describe('the open loop with a fake sender', () => {
  it('seeds, then gets and deletes ids that were created, none deleted twice nor read once deleted', async () => {
    const created = new Set<string>();
    const deleted = new Set<string>();
    const read = new Set<string>();
    const sent: PlannedRequest[] = [];
    const args = parse(
      '--rate',
      '400',
      '--duration',
      '1',
      '--mix',
      'create-plant=1,get-plant=1,list-plants=1,delete-plant=3',
    );
    const result = await runLoad(args, async (request) => {
      sent.push(request);
      const id = /\/plants\/(\d+)$/.exec(request.path)?.[1];
      if (request.operation === 'create-plant') created.add(String(request.creates));
      if (request.operation === 'get-plant' || request.operation === 'delete-plant') {
        expect(created.has(id!) && !deleted.has(id!)).toBe(true);
      }
      if (request.operation === 'get-plant') read.add(id!);
      if (request.operation === 'delete-plant') {
        expect(read.has(id!)).toBe(false);
        deleted.add(id!);
      }
      return { status: 200 };
    });
    const byOperation = (op: Operation) =>
      sent.filter((r) => r.operation === op).length - (op === 'create-plant' ? result.seeded : 0);
    expect(result.seeded).toBe(READ_SEED + Math.ceil((400 * 3) / 6) + 10);
    expect(result.skipped).toEqual([0]);
    expect(result.scheduled).toEqual([400]);
    expect([
      byOperation('create-plant'),
      byOperation('get-plant'),
      byOperation('list-plants'),
      byOperation('delete-plant'),
    ]).toEqual([67, 67, 66, 200]);
    expect(read.size).toBeGreaterThan(30);
    expect(result.recorder.overall.summary().requests).toBe(400);
  });

  it('says why it cannot seed', async () => {
    const args = parse('--mix', 'get-plant=1', '--duration', '1');
    await expect(runLoad(args, async () => ({ status: 401 }))).rejects.toThrow(
      'seeding the plants that get and delete use: a create answered 401 (is PLANT_STORE_TOKEN set, with plants:write?)',
    );
  });
});

describe('an interrupted run', () => {
  it('reports rates over the time each step ran, not its planned length', async () => {
    const args = parse('--rate', '200,400', '--duration', '5');
    const stop = new AbortController();
    let answered = 0;
    const run = await runLoad(
      args,
      async () => {
        // Stopped after 100 answers: well inside the first 5 s step.
        if (++answered === 100) stop.abort();
        return { status: 200 };
      },
      { signal: stop.signal },
    );
    expect(run.interrupted).toBe(true);
    expect(run.stepSeconds[0]).toBeGreaterThan(0);
    expect(run.stepSeconds[0]).toBeLessThan(5);
    expect(run.stepSeconds[1]).toBe(0);
    expect(run.elapsedS).toBe(run.stepSeconds[0]);
    const report = buildReport(args, run);
    const [first, second] = report.steps;
    expect(first!.okPerSecond).toBe(
      Math.round((first!.classes.ok / run.stepSeconds[0]!) * 10) / 10,
    );
    expect(second).toMatchObject({ elapsedSeconds: 0, okPerSecond: 0, requests: 0 });
    // The step it never reached is no knee.
    expect(report.knee).toBeNull();
  });
});

describe('findKnee', () => {
  const step = (rate: number, p99: number, ok = rate * 10, requests = rate * 10) =>
    ({
      rate,
      seconds: 10,
      latencyMs: { p99 },
      requests,
      classes: { ok },
      okPerSecond: ok / 10,
    }) as unknown as StepReport;

  it('is the first step whose p99 turns, or whose answers fail or fall short', () => {
    expect(findKnee([step(50, 10), step(100, 12), step(200, 25), step(400, 300)])).toEqual({
      rate: 200,
      reason: "p99 25.0 ms, over 2× the 50/s step's 10.0 ms",
    });
    expect(findKnee([step(50, 10), step(100, 12, 980)])).toEqual({
      rate: 100,
      reason: '20 of 1000 answers not 2xx',
    });
    expect(findKnee([step(50, 10), step(100, 12, 900, 900)])).toEqual({
      rate: 100,
      reason: '90.0 2xx a second of 100 asked',
    });
    expect(findKnee([step(50, 10), step(100, 12)])).toBeNull();
    expect(findKnee([step(50, 10)])).toBeNull();
  });
});
