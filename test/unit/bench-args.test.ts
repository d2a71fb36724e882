/** `npm run bench` arguments and the memory report's roles: pure functions, no processes. */
import { parseBenchArgs } from '../../lib/tools/bench/args';
import { UsageError } from '../../lib/cli-args';
import { roleOf } from '../../lib/tools/bench/memory';
import { PHASES } from '../../lib/tools/bench/phases';

describe('parseBenchArgs', () => {
  it('has defaults and every phase', () => {
    expect(parseBenchArgs([])).toEqual({
      help: false,
      runs: 30,
      requests: 300,
      loadSeconds: 20,
      phases: PHASES.map((phase) => phase.name),
    });
  });

  it('reads every option', () => {
    expect(
      parseBenchArgs([
        '--runs',
        '5',
        '--requests=7',
        '--load-seconds',
        '3',
        '--phases',
        'load,cold',
      ]),
    ).toEqual({ help: false, runs: 5, requests: 7, loadSeconds: 3, phases: ['load', 'cold'] });
    expect(parseBenchArgs(['-h']).help).toBe(true);
  });

  it.each([
    [['--runs', 'abc'], '--runs must be an integer from 1 to 10000, not abc'],
    [['--runs', '0'], '--runs must be an integer from 1 to 10000, not 0'],
    [['--requests', '1.5'], /--requests must be an integer/],
    [['--load-seconds', '-3'], /load-seconds/],
    [['--phases', 'cold,nope'], /--phases takes some of cold/],
    [['--phases', ''], /--phases takes some of/],
    [['--bogus'], 'unknown option --bogus'],
    [['extra'], 'unexpected argument extra'],
  ])('rejects %j with one line', (argv, message) => {
    expect.assertions(2);
    try {
      parseBenchArgs(argv);
    } catch (error) {
      expect(error).toBeInstanceOf(UsageError);
      expect((error as Error).message).toMatch(message);
    }
  });
});

describe('roleOf', () => {
  it.each([
    ['npm start --silent', '', 'npm'],
    ['node\0/p/node_modules/.bin/tsx\0bin/local.ts\0', '', 'tsx wrapper'],
    ['node\0--import\0tsx\0bin/local.ts\0', '', 'gateway/runtime'],
    [
      '/p/node_modules/@esbuild/linux-x64/bin/esbuild\0--service=0.28.2\0--ping\0',
      '',
      'esbuild service',
    ],
    [
      'node\0/p/lib/local/function-worker.mjs\0',
      'PATH=/bin\0PLANT_STORE_BUNDLE=/d/functions/create-plant/index.mjs\0',
      'sandbox create-plant',
    ],
  ])('%j is the %s', (cmdline, environ, role) => {
    expect(roleOf(cmdline, environ)).toBe(role);
  });
});
