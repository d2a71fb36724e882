/**
 * A sandbox whose process the system refuses to create for want of descriptors (EMFILE, ENFILE):
 * Node then sets up no pipes at all and emits only 'error'. The real processes of the other cases
 * are in test/local/integration/sandbox.test.ts; this one cannot be provoked on purpose.
 */
import { EventEmitter } from 'node:events';

jest.mock('node:child_process', () => ({
  ...jest.requireActual('node:child_process'),
  fork: jest.fn(() => {
    // What Node's spawn leaves for EMFILE: no pid, no stdio, no channel, an error a tick later.
    const child = Object.assign(new EventEmitter(), {
      pid: undefined,
      stdout: null,
      stderr: null,
      connected: false,
      kill: () => false,
    });
    process.nextTick(() =>
      child.emit('error', Object.assign(new Error('spawn EMFILE'), { code: 'EMFILE' })),
    );
    return child;
  }),
}));

import { Sandbox } from '../../../lib/local/lambda/sandbox';

it('ends a sandbox whose process got no descriptors, and a stop started meanwhile returns', async () => {
  const exits: string[] = [];
  const sandbox = new Sandbox({
    bundle: '/nowhere/index.mjs',
    generation: 0,
    environment: {},
    nodePath: '/nowhere/node',
    execArgv: [],
    log: () => undefined,
    onExit: (_sandbox, reason) => exits.push(reason),
  });
  const stopped = sandbox.stop();
  await expect(sandbox.ready).rejects.toThrow(/could not start: spawn EMFILE/);
  await stopped;
  expect(exits).toEqual(['could not start: spawn EMFILE']);
  expect(sandbox.alive).toBe(false);
  expect(sandbox.state).toBe('failed');
});
