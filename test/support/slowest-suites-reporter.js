/**
 * A jest reporter that says, after jest's summary, how long the run took and which suites were
 * slowest (wall time from a suite's start to its end, setup included) and which cost the most
 * CPU (node-environment.js counts it: the worker's and its children's), so that whoever adds a
 * suite sees its cost. `npx jest --reporters=default` leaves it out.
 */
const { mkdtempSync, readFileSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join, relative } = require('node:path');
const { performance } = require('node:perf_hooks');

class SlowestSuites {
  constructor(globalConfig, options = {}) {
    this.rootDir = globalConfig.rootDir;
    this.count = options.count ?? 10;
    this.suites = [];
    // Where the workers (started after the reporters, with this environment) write each suite's CPU.
    this.cpuDir = mkdtempSync(join(tmpdir(), 'plant-store-suite-cpu-'));
    process.env.PLANT_STORE_SUITE_CPU_FILE = join(this.cpuDir, 'suites.jsonl');
  }

  onRunStart() {
    this.started = performance.now();
  }

  onTestResult(_test, result) {
    const { start, end } = result.perfStats;
    if (start && end) {
      this.suites.push({ path: relative(this.rootDir, result.testFilePath), ms: end - start });
    }
  }

  /** Each suite's CPU seconds, as the environment wrote them (none if it could not). */
  cpu() {
    try {
      return readFileSync(process.env.PLANT_STORE_SUITE_CPU_FILE, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line))
        .map(({ path, seconds }) => ({ path: relative(this.rootDir, path), ms: seconds * 1000 }));
    } catch {
      return [];
    } finally {
      rmSync(this.cpuDir, { recursive: true, force: true });
    }
  }

  onRunComplete(_contexts, results) {
    const cpu = this.cpu();
    if (this.suites.length < 2) return;
    const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
    const top = (suites, heading) => {
      const chosen = [...suites].sort((a, b) => b.ms - a.ms).slice(0, this.count);
      const width = Math.max(...chosen.map((s) => seconds(s.ms).length));
      return [
        heading(chosen.length),
        ...chosen.map((s) => `  ${seconds(s.ms).padStart(width)}  ${s.path}`),
      ];
    };
    const lines = [
      '',
      ...top(
        this.suites,
        (n) =>
          `jest: ${results.numTotalTestSuites} suites in ${seconds(performance.now() - this.started)}; the ${n} slowest:`,
      ),
      ...(cpu.length < 2
        ? []
        : top(
            cpu,
            (n) =>
              `the ${n} costliest in CPU (the worker's, and the child processes' that ended, on Linux; ${seconds(cpu.reduce((sum, s) => sum + s.ms, 0))} in all):`,
          )),
      '',
    ];
    // Jest prints its summary after every custom reporter: say this once it has (at exit,
    // where a write to a terminal, a file or a pipe is synchronous on Linux and macOS).
    process.once('exit', () => process.stderr.write(`${lines.join('\n')}\n`));
  }
}

module.exports = SlowestSuites;
