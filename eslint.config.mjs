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
  {
    // Arrows run bin -> lib -> lambda; tests read them all, nothing reads the tests.
    files: ['lambda/**', 'lib/**', 'bin/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [{ group: ['**/test/**'], message: 'lib, bin and lambda never import test/' }],
        },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { module: 'writable', require: 'readonly', __dirname: 'readonly' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
