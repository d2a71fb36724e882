/**
 * `npm test`: `npm run check` (types, lint, format, generated files) and jest side by side, then
 * the checks' output after jest's summary. The checks are one-threaded tools that took over a
 * minute one after another, while the suites leave a core idle as they wait on sockets and child
 * processes. Either failing fails the run. Arguments go to jest (`npm test -- test/plants`).
 * Before either starts, it measures how idle the machine is (see jest.config.js's maxWorkers).
 * (Plain JavaScript: it runs before anything is built.)
 */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { availableParallelism, setPriority } from 'node:os';
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';

/** Runs a child to its end; resolves with its exit code (1 for a signal). */
function finished(child) {
  return new Promise((resolve) => {
    child.once('error', () => resolve(1));
    child.once('close', (code) => resolve(code ?? 1));
  });
}

/**
 * How many cores no process used over `ms`, from Linux's /proc/stat (`undefined` elsewhere):
 * measured before anything of this run starts, for jest.config.js's worker count.
 */
async function idleCores(ms) {
  const sample = async () => {
    const lines = (await readFile('/proc/stat', 'utf8')).split('\n');
    // user nice system idle iowait irq softirq steal (guest time is counted in user and nice).
    const ticks = lines[0].split(/\s+/).slice(1, 9).map(Number);
    return {
      idle: ticks[3] + ticks[4],
      total: ticks.reduce((sum, n) => sum + n, 0),
      cores: lines.filter((line) => /^cpu\d/.test(line)).length,
    };
  };
  try {
    const before = await sample();
    await delay(ms);
    const after = await sample();
    const total = after.total - before.total;
    if (total <= 0) return undefined;
    // The machine's idle cores, counted at most up to the cores this process may use.
    const idle = ((after.idle - before.idle) / total) * after.cores;
    return Math.min(idle, availableParallelism());
  } catch {
    return undefined;
  }
}

/** How much lower than the suites' priority the checks run (a Unix nice value). */
const CHECK_NICENESS = 10;

const idle = await idleCores(500);
if (idle !== undefined) process.env.PLANT_STORE_IDLE_CORES = idle.toFixed(2);

const started = performance.now();
const check = spawn('npm', ['run', '--silent', 'check'], { stdio: ['ignore', 'pipe', 'pipe'] });
// The checks mostly fill the cores the suites leave idle: at a lower priority (its children
// inherit it), they take little CPU from the first suites, the webhook's, whose local runtime
// times its functions out by the clock as Lambda does (nice 10 weighs a tenth of nice 0).
try {
  setPriority(check.pid, CHECK_NICENESS);
} catch {
  // Not allowed, or no such process any more: the checks run at the suites' priority.
}
let checkOutput = '';
check.stdout.on('data', (chunk) => (checkOutput += chunk));
check.stderr.on('data', (chunk) => (checkOutput += chunk));
const checkDone = finished(check);
const checked = checkDone.then((code) => ({
  code,
  seconds: (performance.now() - started) / 1000,
}));

const jestBin = createRequire(import.meta.url).resolve('jest/bin/jest');
const jest = spawn(process.execPath, [jestBin, ...process.argv.slice(2)], { stdio: 'inherit' });
const jestDone = finished(jest);

// Stopped (Ctrl-C, or npm passing on a SIGTERM): both stop too, and the run ends as signalled.
for (const [signal, number] of [
  ['SIGINT', 2],
  ['SIGTERM', 15],
]) {
  process.once(signal, async () => {
    check.kill(signal);
    jest.kill(signal);
    await Promise.all([checkDone, jestDone]);
    process.exit(128 + number);
  });
}

const jestCode = await jestDone;
const { code: checkCode, seconds } = await checked;

process.stdout.write(checkOutput);
console.log(
  checkCode === 0
    ? `npm run check passed (${seconds.toFixed(1)} s, beside jest)`
    : `npm run check failed (exit code ${checkCode}): its output is above`,
);
process.exitCode = checkCode !== 0 ? checkCode : jestCode;
