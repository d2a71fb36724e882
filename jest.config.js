/**
 * Jest, transpiling only (tsconfig's isolatedModules) with esbuild, the functions' bundler, and
 * ts-jest where a suite's `jest.mock` calls must be hoisted (test/support/ts-transform.js): `tsc`
 * type-checks in `npm test`. (Pure JavaScript on purpose: Jest reads it before any transform.)
 */
const { availableParallelism } = require('node:os');

// No suite reaches past loopback (npm runs --offline): a machine's NODE_EXTRA_CA_CERTS would only
// make each of the hundreds of Node processes a run starts read it (~35 ms of CPU each). Set
// here, before Jest starts its workers, so that they and all they start go without it.
delete process.env.NODE_EXTRA_CA_CERTS;

/** Cores idle as `npm test` began (test/support/run-tests.mjs); unmeasured: all of them. */
const idleCores = Number(process.env.PLANT_STORE_IDLE_CORES ?? availableParallelism());

module.exports = {
  testEnvironment: '<rootDir>/test/support/node-environment.js',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  // CommonJS throughout, the client's ESM sources included (NodeNext would keep those ESM).
  transform: { '^.+\\.ts$': '<rootDir>/test/support/ts-transform.js' },
  // Suites load the client's TypeScript source, not the built client/dist (client-package and
  // docs test that); its relative imports name .js files, as ESM resolution needs.
  moduleNameMapper: {
    '^@plant-store/client$': '<rootDir>/client/src/index.ts',
    '^(\\.{1,2}/.+)\\.js$': '$1',
  },
  setupFiles: ['<rootDir>/test/support/setup-env.ts'],
  // One temp folder per run, removed after it (a file a test leaves there fails the run), and
  // the DynamoDB Local a run of several of its suites shares.
  globalSetup: '<rootDir>/test/support/global-setup.js',
  globalTeardown: '<rootDir>/test/support/global-teardown.js',
  // Jest's transform cache beside the other tools' caches, not in the system's temp folder.
  cacheDirectory: '<rootDir>/node_modules/.cache/jest',
  // e2e suites: every answer must be one that openapi.json describes.
  setupFilesAfterEnv: ['<rootDir>/test/support/check-answers.ts'],
  // A bound against a hang, not a speed promise: beside CPU burners, an e2e test that starts
  // dozens of sandboxes or rebuilds the functions again and again took over 2 minutes.
  testTimeout: 300_000,
  // One worker per core (Jest's default, cores - 1, runs a 2-core machine's suites one after
  // another), and two more when the machine was idle as `npm test` began (run-tests.mjs measures
  // it; `npx jest` assumes so): the longest suites, the webhook's, wait most of their time on
  // timers, sockets and child processes, and with one extra worker on 2 cores those waits left
  // both cores mostly idle for long stretches. On a machine already busy there is no
  // wait to fill: extra workers only starve the others, as `make -l` knows. A suite must not
  // depend on running alone or on the machine's pace. `npx jest --maxWorkers=1` runs them in band.
  maxWorkers: availableParallelism() + (idleCores >= availableParallelism() - 0.5 ? 2 : 0),
  // Longest first, guessing from a suite's kind before Jest has timed it (test/support/sequencer.js).
  testSequencer: '<rootDir>/test/support/sequencer.js',
  // After the summary: how long the run took, and its slowest suites.
  reporters: ['default', '<rootDir>/test/support/slowest-suites-reporter.js'],
  // Functions log a JSON line per request; `npx jest --silent=false` shows them.
  silent: true,
};
