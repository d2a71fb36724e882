// Builds dist/: the client bundled by esbuild as ESM (dist/index.js) and CommonJS
// (dist/cjs/index.js, CommonJS by dist/cjs/package.json), lossless-json inside, so that the
// package has no runtime dependency; and tsc's declarations for each (the same .d.ts files, read
// as ESM types beside index.js and as CommonJS types under cjs/). The tsc is TypeScript 7's native
// one, which the repository's package.json installs as @typescript/native (docs/contributing.md).
//
// `--if-possible` (the repository's `npm install`, through the root's postinstall) builds when the
// build tools are installed; where they are not (`npm install --omit=dev`), it keeps a built dist/
// or says in one line that the client is not built, and lets the install finish. The package has
// no install script of its own: npm warns about one in every project that installs the tarball.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DIST = `${ROOT}dist`;
const require = createRequire(import.meta.url);

let esbuild;
let tsc;
try {
  esbuild = await import('esbuild');
  // The package exports no bin/ path: find its folder by its package.json.
  tsc = join(dirname(require.resolve('@typescript/native/package.json')), 'bin/tsc');
} catch (error) {
  if (!process.argv.includes('--if-possible')) throw error;
  if (!(existsSync(`${DIST}/index.js`) && existsSync(`${DIST}/cjs/index.js`))) {
    process.stderr.write(
      '@plant-store/client: not built (esbuild and typescript are not installed here); ' +
        'npm install with dev dependencies builds it\n',
    );
  }
  process.exit(0);
}

rmSync(DIST, { recursive: true, force: true });
const common = {
  entryPoints: [`${ROOT}src/index.ts`],
  bundle: true,
  platform: 'neutral',
  mainFields: ['module', 'main'],
  target: 'es2022',
  keepNames: true,
  legalComments: 'inline',
  logLevel: 'warning',
};
await esbuild.build({ ...common, format: 'esm', outfile: `${DIST}/index.js` });
await esbuild.build({ ...common, format: 'cjs', outfile: `${DIST}/cjs/index.js` });
writeFileSync(`${DIST}/cjs/package.json`, '{ "type": "commonjs" }\n');

const declarations = spawnSync(process.execPath, [tsc, '-p', `${ROOT}tsconfig.build.json`], {
  stdio: 'inherit',
});
if (declarations.status !== 0) process.exit(declarations.status ?? 1);
mkdirSync(`${DIST}/cjs`, { recursive: true });
for (const file of readdirSync(DIST).filter((name) => name.endsWith('.d.ts'))) {
  cpSync(`${DIST}/${file}`, `${DIST}/cjs/${file}`);
}
