/**
 * The capacity model's measured inputs are data: `measurements/bench.json`, which the bench
 * rewrites one part at a time with the machine, the Node and the time, and which is checked
 * when read.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MEASURED } from '../../../lib/generators/capacity/inputs';
import {
  measuredHere,
  MEASUREMENTS_FILE,
  readMeasurements,
  writeMeasurement,
} from '../../../lib/lab/measurements';

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'measurements-'));
  file = join(dir, 'bench.json');
  copyFileSync(MEASUREMENTS_FILE, file);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

it('is what the capacity model reads', () => {
  expect(MEASURED).toEqual(readMeasurements());
});

it('rewrites one part with where and when it was measured, and keeps the other', () => {
  const before = readMeasurements(file);
  writeMeasurement(
    'fanOut',
    { ...measuredHere('npm run bench -- --phases fan-out'), cpuMsPerCall: 1.5 },
    file,
  );
  const after = readMeasurements(file);
  expect(after.request).toEqual(before.request);
  expect(after.fanOut).toMatchObject({
    command: 'npm run bench -- --phases fan-out',
    node: process.version,
    cpuMsPerCall: 1.5,
  });
  expect(after.fanOut.cpus).toBeGreaterThan(0);
  expect(Date.now() - Date.parse(after.fanOut.date)).toBeLessThan(60_000);
  // The text Prettier leaves: two spaces a level, a final newline.
  expect(readFileSync(file, 'utf8')).toBe(`${JSON.stringify(after, null, 2)}\n`);
});

it('refuses a file without the machine or with a negative figure, naming where', () => {
  const broken = JSON.parse(readFileSync(file, 'utf8'));
  delete broken.request.cpuModel;
  broken.fanOut.cpuMsPerCall = -1;
  writeFileSync(file, JSON.stringify(broken));
  expect(() => readMeasurements(file)).toThrow(
    new RegExp(`^${file}: request.cpuModel: .*; fanOut.cpuMsPerCall: `),
  );
});

it('writes a part the file does not hold yet, and reads it back checked', () => {
  const without = JSON.parse(readFileSync(file, 'utf8'));
  delete without.cold;
  writeFileSync(file, JSON.stringify(without));
  expect(() => readMeasurements(file)).toThrow(/cold/);
  const cold = {
    ...measuredHere('npm run bench -- --phases cold --runs 30'),
    floorOverBare: { ms: 20.6, cpuMs: 18.2 },
    functions: { 'create-plant': { ms: 2.5, cpuMs: -0.4 } },
  };
  writeMeasurement('cold', cold, file);
  expect(readMeasurements(file).cold).toEqual(cold);
  expect(readMeasurements(file).request).toEqual(without.request);
});

it('keeps the cpu phase figures by number of connections, each role a request', () => {
  const cpu = {
    ...measuredHere('npm run bench -- --phases cpu'),
    requests: 1500,
    runs: 2,
    connections: 16,
    warmUpSeconds: 45,
    atOne: { sandboxes: 4.64, roles: { 'sandbox create-plant': 1.59 } },
    atLoad: { sandboxes: 4.89, roles: { 'sandbox create-plant': 2.29 } },
  };
  writeMeasurement('cpu', cpu, file);
  expect(readMeasurements(file).cpu).toEqual(cpu);
  const negative = structuredClone(cpu);
  negative.atLoad.roles['sandbox create-plant'] = -1;
  expect(() => writeMeasurement('cpu', negative, file)).toThrow(/atLoad/);
});

it('writes a part over a file whose other part is stale, and refuses a bad part itself', () => {
  // A field new to the schema: each phase re-records its own part, one run after the other.
  const stale = JSON.parse(readFileSync(file, 'utf8'));
  delete stale.request.cpuModel;
  writeFileSync(file, JSON.stringify(stale));
  const fanOut = { ...measuredHere('npm run bench -- --phases fan-out'), cpuMsPerCall: 1.5 };
  writeMeasurement('fanOut', fanOut, file);
  expect(JSON.parse(readFileSync(file, 'utf8')).fanOut).toEqual(fanOut);
  expect(() => readMeasurements(file)).toThrow(/request\.cpuModel/);
  expect(() => writeMeasurement('fanOut', { ...fanOut, cpuMsPerCall: -1 }, file)).toThrow(
    new RegExp(`^${file}: fanOut\\.cpuMsPerCall: `),
  );
});

it('writes the parts in the order the file is read in, whatever order it had', () => {
  const shuffled = JSON.parse(readFileSync(file, 'utf8'));
  const { request, ...rest } = shuffled;
  writeFileSync(file, JSON.stringify({ ...rest, request }));
  writeMeasurement('request', readMeasurements(file).request, file);
  expect(Object.keys(JSON.parse(readFileSync(file, 'utf8')))).toEqual(
    Object.keys(readMeasurements()),
  );
});
