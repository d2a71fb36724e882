/**
 * The generated blocks of docs/performance.md: what each bench phase measures (from the phases
 * themselves) and the per-request figures the bench last recorded (`measurements/bench.json`).
 */
import { FUNCTIONS } from '../../definitions/functions';
import { PHASES } from '../../lab/bench/phases';
import { readMeasurements, type MeasuredOn } from '../../lab/measurements';
import { n, table } from '../capacity/format';

/** The machine and Node a part was measured on, as a page says it once. */
export function measuredOn(part: MeasuredOn): string {
  return `${part.cpus} × ${part.cpuModel} (${part.arch}), Node ${part.node}`;
}

/** Every phase of `npm run bench`, in the order it runs them. */
export function benchPhases(): string {
  return table(
    ['phase (`--phases`)', 'what it measures'],
    PHASES.map((phase) => [`\`${phase.name}\``, phase.description]),
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
