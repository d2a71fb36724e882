/**
 * A pool whose sandbox processes the system refuses synchronously (Node throws from `fork` for
 * ENOTDIR, E2BIG and the like): each invocation fails as one whose sandbox died, and the start
 * slot goes back, so that later invocations are not left waiting for one. Cannot be provoked on
 * a real system on purpose; the real processes are in test/local/integration/sandbox.test.ts.
 */
jest.mock('node:child_process', () => ({
  ...jest.requireActual('node:child_process'),
  fork: jest.fn(() => {
    throw Object.assign(new Error('spawn ENOTDIR'), { code: 'ENOTDIR' });
  }),
}));

import { InvocationError } from '../../../lib/local/lambda/sandbox';
import { StartGate } from '../../../lib/local/lambda/start-gate';
import { pool } from '../../support/sandbox-pool';

it('fails each invocation whose sandbox could not start, and gives the start slot back', async () => {
  // One slot: a start that kept it would leave the second invocation waiting for good.
  const { pool: p, invoke, lines } = pool({ startGate: new StartGate(1) });
  for (let i = 0; i < 3; i++) {
    const failed = await invoke().catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(InvocationError);
    expect(failed).toMatchObject({
      kind: 'crash',
      message: 'sandbox could not start: spawn ENOTDIR',
    });
  }
  expect(p.size).toBe(0);
  expect(lines.filter((l) => l.startsWith('a sandbox could not be started'))).toHaveLength(3);
}, 15_000);

it('fails every invocation waiting under the inspector, and warming gives up quietly', async () => {
  const { pool: p, invoke, lines } = pool({ startGate: new StartGate(1), inspectPort: 9339 });
  await expect(p.warm()).resolves.toBeUndefined();
  const settled = await Promise.allSettled([invoke(), invoke(), invoke()]);
  for (const result of settled) {
    expect(result).toMatchObject({
      status: 'rejected',
      reason: { kind: 'crash', message: 'sandbox could not start: spawn ENOTDIR' },
    });
  }
  expect(p.size).toBe(0);
  expect(lines.filter((l) => l.startsWith('a sandbox could not be started'))).toHaveLength(4);
}, 15_000);
