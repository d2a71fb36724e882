/**
 * A jest reporter that says, after jest's summary, how long the run took and which suites were
 * slowest (wall time from a suite's start to its end, setup included), so that whoever adds a
 * suite sees its cost. `npx jest --reporters=default` leaves it out.
 */
const { relative } = require('node:path');
const { performance } = require('node:perf_hooks');

class SlowestSuites {
  constructor(globalConfig, options = {}) {
    this.rootDir = globalConfig.rootDir;
    this.count = options.count ?? 10;
    this.suites = [];
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

  onRunComplete(_contexts, results) {
    if (this.suites.length < 2) return;
    const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
    const slowest = [...this.suites].sort((a, b) => b.ms - a.ms).slice(0, this.count);
    const width = Math.max(...slowest.map((s) => seconds(s.ms).length));
    const lines = [
      '',
      `jest: ${results.numTotalTestSuites} suites in ${seconds(performance.now() - this.started)}; the ${slowest.length} slowest:`,
      ...slowest.map((s) => `  ${seconds(s.ms).padStart(width)}  ${s.path}`),
      '',
    ];
    // Jest prints its summary after every custom reporter: say this once it has (at exit,
    // where a write to a terminal, a file or a pipe is synchronous on Linux and macOS).
    process.once('exit', () => process.stderr.write(`${lines.join('\n')}\n`));
  }
}

module.exports = SlowestSuites;
