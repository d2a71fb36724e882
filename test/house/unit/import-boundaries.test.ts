/**
 * The arrows between the rooms are lint rules (eslint.config.mjs), not a convention: an import
 * against them fails `npm run check`. Each case lints one import as if written in a file of
 * the room, through the project's own ESLint configuration.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '../../..');

/** One import, as if written in `file`. */
type Case = readonly [file: string, specifier: string];

/**
 * The restricted-import messages ESLint gives each case, from one ESLint process (the
 * configuration is an ES module, which Jest's module system does not load).
 */
function lint(cases: readonly Case[]): string[][] {
  const script = `
    import { ESLint } from 'eslint';
    const cases = JSON.parse(process.argv[1]);
    const eslint = new ESLint({ cwd: process.cwd() });
    const out = [];
    for (const [file, specifier] of cases) {
      const code = "import { value } from '" + specifier + "';\\nexport const copy = value;\\n";
      const [result] = await eslint.lintText(code, { filePath: file });
      out.push(result.messages
        .filter((m) => m.ruleId === '@typescript-eslint/no-restricted-imports')
        .map((m) => m.message));
    }
    process.stdout.write(JSON.stringify(out));`;
  const output = execFileSync(
    process.execPath,
    ['--input-type=module', '-e', script, JSON.stringify(cases)],
    { cwd: ROOT, encoding: 'utf8' },
  );
  return JSON.parse(output) as string[][];
}

const FORBIDDEN: readonly (readonly [file: string, specifier: string, why: string])[] = [
  ['lambda/plants/table.ts', '../../lib/definitions/api', 'lambda never imports lib/'],
  ['lambda/deliver/post.ts', '../../bin/webhook', 'lambda never imports lib/ or bin/'],
  ['lambda/webhook/message.ts', '../../test/support/http', 'never import test/'],
  ['lib/definitions/api.ts', '../../bin/local', 'lib never imports bin/'],
  ['bin/token.ts', '../test/support/run-cli', 'never import test/'],
  ['lib/operator/token-cli.ts', '../local/process/settings', 'only through lib/npm-start/'],
  ['lib/operator/webhook/cli.ts', '../../local/webhooks', 'only through lib/npm-start/'],
  ['lib/lab/bench/load.ts', '../../local/runtime', 'only through lib/npm-start/'],
  [
    'lib/generators/openapi/document.ts',
    '../../local/dev/docs-pages',
    'only through lib/npm-start/',
  ],
  ['lib/release/versions.ts', '../local/process/options', 'only through lib/npm-start/'],
  ['lib/console/server.ts', '../local/dev/invocations', 'only through lib/npm-start/'],
  ['lib/local/runtime.ts', '../console/server', 'imports none of the code that uses it'],
  ['lib/local/runtime.ts', '../npm-start/find', 'imports none of the code that uses it'],
  ['lib/local/dev/watch.ts', '../../operator/token-cli', 'imports none of the code that uses it'],
  ['client/src/request.ts', '../../lambda/http/json', 'the client imports nothing of the service'],
];
const ALLOWED: readonly Case[] = [
  ['lambda/plants/table.ts', '../aws/dynamodb'],
  ['lib/operator/token-cli.ts', '../npm-start/find'],
  ['lib/console/server.ts', '../operator/token-cli'],
  ['lib/lab/bench/load.ts', '../../npm-start/spawn'],
  ['lib/npm-start/find.ts', '../local/process/settings'],
  ['lib/local/runtime.ts', '../definitions/functions'],
  ['lib/generators/openapi/document.ts', '../../../lambda/plants/schemas'],
  ['bin/local.ts', '../lib/local/runtime'],
  ['client/src/request.ts', './errors.js'],
];

let forbidden: string[][];
let allowed: string[][];
beforeAll(() => {
  const results = lint([
    ...FORBIDDEN.map(([file, specifier]) => [file, specifier] as const),
    ...ALLOWED,
  ]);
  forbidden = results.slice(0, FORBIDDEN.length);
  allowed = results.slice(FORBIDDEN.length);
}, 300_000);

it.each(FORBIDDEN.map((entry, i) => [...entry, i] as const))(
  '%s may not import %s',
  (_file, _specifier, why, i) => {
    expect(forbidden[i]).toHaveLength(1);
    expect(forbidden[i]![0]).toContain(why);
  },
);

it.each(ALLOWED.map((entry, i) => [...entry, i] as const))('%s may import %s', (_f, _s, i) => {
  expect(allowed[i]).toEqual([]);
});
