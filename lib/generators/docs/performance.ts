/**
 * The generated blocks of docs/performance.md: what each bench phase measures (from the phases
 * themselves), and the per-request, cold-start, CPU-per-request and serverless-offline figures
 * the bench last recorded (`measurements/bench.json`).
 */
import { FUNCTIONS } from '../../definitions/functions';
import { STREAM_POLL_INTERVAL_MS, STREAM_SOURCE } from '../../definitions/webhooks';
import { signedMs } from '../../lab/bench/measure';
import { installCommand, runCommand } from '../../lab/bench/offline';
import { PHASES } from '../../lab/bench/phases';
import { readMeasurements, type MeasuredOn } from '../../lab/measurements';
import { n, table } from '../capacity/format';

/** The machine a part was measured on. */
function machineOf(part: MeasuredOn): string {
  return `${part.cpus} × ${part.cpuModel} (${part.arch})`;
}

/** The machine and Node a part was measured on, as a page says it once. */
export function measuredOn(part: MeasuredOn): string {
  return `${machineOf(part)}, Node ${part.node}`;
}

/** Every phase of `npm run bench`, in the order it runs them, and which ones record. */
export function benchPhases(): string {
  return table(
    ['phase (`--phases`)', 'what it measures', 'recorded'],
    PHASES.map((phase) => [`\`${phase.name}\``, phase.description, phase.records ? 'yes' : '']),
  );
}

/** The request path's figures per invocation, and the fan-out's CPU per queue call. */
export function requestFigures(): string {
  const { request, fanOut } = readMeasurements();
  return [
    `Measured on ${measuredOn(request)} by \`${request.command} --write-measurements\`; medians, warm, in process against the local engine:`,
    '',
    table(
      ['function', 'handler time', 'logged per invocation', 'DynamoDB capacity units'],
      Object.entries(request.functions).map(([name, f]) => [
        name,
        `${f.ms} ms`,
        `${n(f.bytesLogged)} bytes`,
        String(f.units),
      ]),
    ),
    '',
    `The fan-out (\`${fanOut.command} --write-measurements\`, ${measuredOn(fanOut)}) spends ${fanOut.cpuMsPerCall} ms of CPU per SendMessageBatch of ten deliveries on one core; at ${n(FUNCTIONS['fan-out'].memorySize)} MB Lambda gives it one vCPU.`,
  ].join('\n');
}

/**
 * Each function's cold import over the floor, in CPU time (all threads: what another load on the
 * machine disturbs least) and as a share of what the floor itself costs over a bare handler.
 */
export function coldFigures(): string {
  const { cold } = readMeasurements();
  const floor = cold.floorOverBare.cpuMs;
  return [
    `Measured on ${measuredOn(cold)} by \`${cold.command} --write-measurements\`: fresh processes importing each bundle, alternated with the floor in one run, medians of the per-pair differences in CPU time. The floor itself costs ${signedMs(floor)} of CPU time over a bare handler on that machine.`,
    '',
    table(
      ['function', 'CPU time over the floor', "share of the floor's own cost"],
      Object.entries(cold.functions).map(([name, f]) => [
        name,
        signedMs(f.cpuMs),
        `${Math.round((100 * f.cpuMs) / floor)} %`,
      ]),
    ),
  ].join('\n');
}

/**
 * `npm start`'s CPU time a request by process role at one connection and at the load's, and the
 * ratio of the two, taken alternately in one run: every sandbox together first, then each role
 * (the busiest under load first), with what the pool and the stream do that the figures show.
 */
export function cpuFigures(): string {
  const { cpu } = readMeasurements();
  const { atOne, atLoad, connections } = cpu;
  const ms = (figure?: number) => (figure === undefined ? '–' : `${figure.toFixed(2)} ms`);
  // A role whose every figure prints as 0.00 ms (esbuild's service answering a ping) says nothing.
  const roles = [...new Set([...Object.keys(atLoad.roles), ...Object.keys(atOne.roles)])].filter(
    (role) => [atOne.roles[role], atLoad.roles[role]].some((figure) => (figure ?? 0) >= 0.005),
  );
  const ratio = (one?: number, load?: number) =>
    one === undefined || load === undefined || one === 0 ? '–' : `${(load / one).toFixed(2)}×`;
  const row = (name: string, one?: number, load?: number) => [
    name,
    ms(one),
    ms(load),
    ratio(one, load),
  ];
  return [
    `Measured on ${machineOf(cpu)} by \`${cpu.command} --write-measurements\`: the runtime and the functions on Node ${cpu.node}; ${n(cpu.requests)} distinct creates a figure, ${cpu.runs} figures at each number of connections, alternating, means, after ${cpu.warmUpSeconds} s of the load at ${connections} connections, which each sandbox needs to tier its code up; the authorizer cache off. Each invocation in flight holds a sandbox of its function, so at ${connections} connections up to ${connections} sandboxes of each function on the request path take turns on the cores. The stream is polled every ${STREAM_POLL_INTERVAL_MS} ms, as Lambda polls a shard, and what a poll finds goes to the fan-out in batches of up to ${STREAM_SOURCE.batchSize}: under load one fan-out invocation serves many creates.`,
    '',
    table(
      [
        'role (all its processes)',
        '1 connection',
        `${connections} connections`,
        `${connections} / 1`,
      ],
      [
        row('every sandbox', atOne.sandboxes, atLoad.sandboxes),
        ...roles.map((role) => row(role, atOne.roles[role], atLoad.roles[role])),
      ],
    ),
  ].join('\n');
}

/**
 * How to record the offline figures: serverless-offline's scratch install, as the phase's own
 * message gives it, and the run without an authorizer cache on either side.
 */
export function offlineRun(): string {
  return [
    '```sh',
    installCommand('/tmp/sls'),
    `${runCommand('/tmp/sls')} --write-measurements`,
    'npm run generate',
    '```',
  ].join('\n');
}

/**
 * `npm start` against serverless-offline, as ratios of the two sides measured side by side in one
 * run (absolute figures differ from machine to machine; the ratio is what carries over).
 */
export function offlineFigures(): string {
  const { offline } = readMeasurements();
  const { npmStart, offline: theirs } = offline;
  return [
    `Measured on ${machineOf(offline)} (npm start, its functions and serverless-offline on Node ${offline.node}) by \`${offline.command} --write-measurements\` against serverless-offline ${offline.serverlessOffline}: ${offline.connections} keep-alive connections of distinct creates, ${offline.seconds} s a run, ${offline.runs} runs a side, alternating, means, each side first warmed by ${offline.warmUpSeconds} s of the same load (each of its sandboxes or worker threads tiers its code up on its own); ${offline.cacheTtlSeconds === 0 ? 'neither caches authorizer decisions' : `npm start caches authorizer decisions ${offline.cacheTtlSeconds} s, serverless-offline none`}.`,
    '',
    table(
      ['', 'npm start', 'serverless-offline', 'npm start / serverless-offline'],
      [
        [
          'creates answered 200 a second',
          n(Math.round(npmStart.rps)),
          n(Math.round(theirs.rps)),
          `${(npmStart.rps / theirs.rps).toFixed(2)}×`,
        ],
        [
          'p99 latency',
          `${Math.round(npmStart.p99Ms)} ms`,
          `${Math.round(theirs.p99Ms)} ms`,
          `${(npmStart.p99Ms / theirs.p99Ms).toFixed(2)}×`,
        ],
      ],
    ),
  ].join('\n');
}
