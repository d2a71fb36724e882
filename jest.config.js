/** Jest: TypeScript through SWC (type checking is `tsc`'s job in `npm test`). */
module.exports = {
  testEnvironment: '<rootDir>/test/support/node-environment.js',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' } }] },
  setupFiles: ['<rootDir>/test/support/setup-env.ts'],
  testTimeout: 30_000,
  // Functions log a JSON line per request; `npx jest --silent=false` shows them.
  silent: true,
};
