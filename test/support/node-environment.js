/**
 * Jest's node environment, with the host's `Error` shared into the test realm. Node's socket
 * errors are made in the host realm; without this, `instanceof Error` fails for them inside
 * tests (jest#2549) and the AWS SDK wraps them, hiding their `code` — unlike on Lambda.
 *
 * It also counts each suite's CPU, for the slowest-suites reporter: the worker's own, from setup
 * to teardown, and (on Linux, from /proc/self/stat) that of the child processes that ended in
 * that time (sandboxes, engines, commands). Not counted: a child still running at teardown (the
 * esbuild service a worker keeps; one that exits later counts in the worker's next suite) and
 * the run's shared DynamoDB Local, which jest's own process started.
 */
const { appendFileSync, readFileSync } = require('node:fs');
const { TestEnvironment } = require('jest-environment-node');

/** Clock ticks a second, as /proc counts them (Linux's USER_HZ, 100 on every architecture). */
const TICKS_PER_SECOND = 100;

/** CPU seconds so far: this process's, and its waited-for children's (undefined off Linux). */
function cpuSeconds() {
  const { user, system } = process.cpuUsage();
  let children;
  try {
    // After the command's closing parenthesis: state is field 3, cutime and cstime 16 and 17.
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    children = (Number(fields[13]) + Number(fields[14])) / TICKS_PER_SECOND;
  } catch {
    children = undefined;
  }
  return { own: (user + system) / 1e6, children };
}

class SharedErrorEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    this.global.Error = Error;
    this.testPath = context.testPath;
  }

  async setup() {
    await super.setup();
    this.cpuAtStart = cpuSeconds();
  }

  async teardown() {
    try {
      const file = process.env.PLANT_STORE_SUITE_CPU_FILE;
      if (file && this.cpuAtStart) {
        const now = cpuSeconds();
        const children =
          now.children === undefined ? 0 : now.children - (this.cpuAtStart.children ?? 0);
        const seconds = now.own - this.cpuAtStart.own + children;
        appendFileSync(file, `${JSON.stringify({ path: this.testPath, seconds })}\n`);
      }
    } catch {
      // The figure is lost (the reporter's folder already removed): the suite is not.
    } finally {
      await super.teardown();
    }
  }
}

module.exports = SharedErrorEnvironment;
