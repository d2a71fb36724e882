/**
 * Jest's transform of the TypeScript sources: esbuild, which builds the functions already (its
 * native binary is installed with it), strips the types to CommonJS in a millisecond a file. Jest
 * transforms every file again in a fresh clone, as in CI: there TypeScript's own transpiler
 * (ts-jest) cost the unit suites 40 % more CPU (`npx jest --no-cache test/plants/unit
 * test/tokens/unit test/functions/unit`). Only transpiling: `tsc` type-checks in `npm test`.
 * A file that calls `jest.mock` goes through ts-jest, whose hoisting runs those calls before the
 * file's imports (Jest's rule; esbuild keeps statements in order). esbuild's modules export
 * getters: `jest.spyOn` on a module's exports throws; spy on an object the code is given.
 * (Plain JavaScript: Jest loads it before any transform is set up.)
 */
const { createHash } = require('node:crypto');
const { readFileSync } = require('node:fs');
const { transformSync } = require('esbuild');

/** The compiler options both transpile with (tsconfig.json's, as CommonJS). */
const COMPILER_OPTIONS = { module: 'commonjs', moduleResolution: 'bundler' };
/** ts-jest, loaded for the first file that needs it (it loads TypeScript). */
let tsJestTransformer;
const tsJest = () => {
  if (!tsJestTransformer) {
    const { TsJestTransformer } = require('ts-jest');
    tsJestTransformer = new TsJestTransformer({ diagnostics: false, tsconfig: COMPILER_OPTIONS });
  }
  return tsJestTransformer;
};
const TSCONFIG = JSON.parse(readFileSync(require.resolve('../../tsconfig.json'), 'utf8'));
/** What else decides the output: esbuild's version, this file (its options) and tsconfig.json's. */
const TRANSFORM = [
  require('esbuild/package.json').version,
  readFileSync(__filename, 'utf8'),
  JSON.stringify(TSCONFIG.compilerOptions),
].join('\0');

/** Whether ts-jest must transform `source`: it calls `jest.mock`, which Jest hoists. */
const needsHoisting = (source) => /\bjest\s*\.\s*mock\s*\(/.test(source);

module.exports = {
  getCacheKey(source, path, options) {
    if (needsHoisting(source)) return tsJest().getCacheKey(source, path, options);
    return (
      createHash('sha256')
        // Jest caches the code after coverage's instrumentation, under this key.
        .update(`${TRANSFORM}\0${options.instrument}\0${options.configString}\0${path}\0${source}`)
        .digest('hex')
    );
  },
  process(source, path, options) {
    if (needsHoisting(source)) return tsJest().process(source, path, options);
    const { code, map } = transformSync(source, {
      loader: 'ts',
      format: 'cjs',
      // The Node that runs the suites (package.json's engines).
      target: 'node20',
      // `import()` as a `require` (as TypeScript's CommonJS output has it): Jest's module
      // registry serves `require`, and refuses a real dynamic import without a Node flag.
      supported: { 'dynamic-import': false },
      sourcemap: 'external',
      sourcefile: path,
      tsconfigRaw: { compilerOptions: { ...TSCONFIG.compilerOptions, ...COMPILER_OPTIONS } },
    });
    return { code, map };
  },
};
