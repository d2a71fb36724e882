import js from '@eslint/js';
import regexp from 'eslint-plugin-regexp';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'cdk.out/', 'dist/', 'client/dist/', '.plant-store/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // Request bodies and headers meet the regexes of the functions and of the local runtime: one
    // that can backtrack or move super-linearly turns one request into seconds of CPU, so none
    // may. (Tests only match their own output, so they are left out.)
    files: ['lambda/**', 'lib/**', 'bin/**', 'client/src/**'],
    plugins: { regexp },
    rules: {
      'regexp/no-super-linear-move': ['error', { ignorePartial: false }],
      'regexp/no-super-linear-backtracking': ['error', { report: 'potential' }],
    },
  },
  // The arrows between the rooms (README "Layout"): bin -> lib -> lambda, and inside lib each
  // audience reaches the emulator through lib/npm-start/ alone. A rule per room, because a later
  // block's rule replaces an earlier one's for the files both name: each lists all its own
  // patterns. test/house/unit/import-boundaries.test.ts checks that each one fails an import.
  ...boundaries(),
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
  {
    // The local console's page runs in a browser.
    files: ['lib/console/page/**'],
    languageOptions: {
      sourceType: 'script',
      globals: Object.fromEntries(
        [
          'document',
          'fetch',
          'FormData',
          'URLSearchParams',
          'Node',
          'confirm',
          'prompt',
          'setTimeout',
          'location',
          'history',
          'sessionStorage',
        ].map((name) => [name, 'readonly']),
      ),
    },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: {
        module: 'writable',
        require: 'readonly',
        __dirname: 'readonly',
        __filename: 'readonly',
      },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);

/** The import rules, one block per room: what each may not import, and why. */
function boundaries() {
  const never = (room, why) => ({ regex: room, message: why });
  const tests = never('(^|/)test/', 'lib, bin and lambda never import test/');
  const upward = never(
    '(^|/)(lib|bin)/',
    'lambda never imports lib/ or bin/: arrows run bin -> lib -> lambda',
  );
  const bin = never('(^|/)bin/', 'lib never imports bin/: arrows run bin -> lib -> lambda');
  const emulator = never(
    '(^|/)local/',
    'operator, console, generator, release and lab code reach the emulator only through lib/npm-start/',
  );
  const audiences = never(
    '(^|/)(operator|console|generators|release|lab|npm-start)/',
    'the emulator (lib/local) imports none of the code that uses it',
  );
  const rule = (...patterns) => ({
    '@typescript-eslint/no-restricted-imports': ['error', { patterns }],
  });
  return [
    { files: ['bin/**'], rules: rule(tests) },
    { files: ['lambda/**'], rules: rule(tests, upward) },
    { files: ['lib/**'], rules: rule(tests, bin) },
    {
      files: [
        'lib/operator/**',
        'lib/console/**',
        'lib/generators/**',
        'lib/release/**',
        'lib/lab/**',
      ],
      rules: rule(tests, bin, emulator),
    },
    { files: ['lib/local/**'], rules: rule(tests, bin, audiences) },
    {
      files: ['client/src/**'],
      rules: rule(
        never(
          '^\\.\\./\\.\\./',
          'the client imports nothing of the service: it is its own package',
        ),
      ),
    },
  ];
}
