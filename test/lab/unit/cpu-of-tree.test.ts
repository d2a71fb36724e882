/** The cpu phase's reading of a process tree's CPU time: every process, its role, its time. */
import { spawn } from 'node:child_process';
import { cpuOfTree, meanOf } from '../../../lib/lab/bench/cpu-per-request';

describe('cpuOfTree', () => {
  it('finds a child by its role and counts the CPU time it burns', async () => {
    // A child that looks like a sandbox to `roleOf` and spins for 300 ms of CPU.
    const child = spawn(
      process.execPath,
      [
        '-e',
        'while (process.cpuUsage().user < 300_000); console.log("spun"); setTimeout(() => {}, 60_000)',
      ],
      {
        env: {
          PATH: process.env.PATH ?? '',
          PLANT_STORE_BUNDLE: '/x/functions/authorizer/index.mjs',
        },
      },
    );
    try {
      await new Promise((resolve) => child.stdout!.once('data', resolve));
      const tree = cpuOfTree(process.pid);
      expect(tree.get(process.pid)?.ms).toBeGreaterThan(0);
      const sandbox = tree.get(child.pid!);
      expect(sandbox?.role).toBe('sandbox authorizer');
      expect(sandbox?.ms).toBeGreaterThanOrEqual(250);
    } finally {
      child.kill();
    }
  });
});

describe('meanOf', () => {
  it("records each role's mean over the runs, a run without it counting 0", () => {
    const runs = [
      {
        sandboxes: 4,
        roles: new Map([
          ['sandbox create-plant', 2],
          ['gateway/runtime', 1],
          ['npm', 0],
        ]),
      },
      { sandboxes: 5.0004, roles: new Map([['sandbox create-plant', 3]]) },
    ];
    const mean = meanOf(runs);
    expect(mean).toEqual({
      sandboxes: 4.5,
      roles: { 'sandbox create-plant': 2.5, 'gateway/runtime': 0.5 },
    });
    // The busiest role first, as the page lists them.
    expect(Object.keys(mean.roles)).toEqual(['sandbox create-plant', 'gateway/runtime']);
  });
});
